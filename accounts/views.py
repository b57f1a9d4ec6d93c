from django.contrib import messages
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from . import auth
from .decorators import login_required
from .forms import LoginForm, PasswordChangeForm, SignupForm
from .redirects import safe_next


@require_http_methods(["GET", "POST"])
def signup(request):
    if request.user.is_authenticated:
        return redirect("home")
    form = SignupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        uid = form.save()
        if uid is not None:
            user = auth.load_user(uid)
            auth.login(request, user)
            messages.success(request, f"Welcome, {user.name}! Your account is ready.")
            return redirect("home")
    status = 400 if form.errors else 200
    return render(request, "accounts/signup.html", {"form": form}, status=status)


@require_http_methods(["GET", "POST"])
def login(request):
    next_url = safe_next(request)
    if request.user.is_authenticated:
        return redirect(next_url)
    form = LoginForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        auth.login(request, form.user)
        messages.success(request, f"Welcome back, {form.user.name}.")
        return redirect(next_url)
    status = 400 if form.errors else 200
    context = {"form": form, "next": next_url}
    return render(request, "accounts/login.html", context, status=status)


@require_POST
def logout(request):
    auth.logout(request)
    messages.info(request, "You have logged out.")
    return redirect("home")


@require_http_methods(["GET", "POST"])
@login_required
def password_change(request):
    form = PasswordChangeForm(request.user, request.POST or None)
    if request.method == "POST" and form.is_valid():
        auth.change_password(request, request.user, form.cleaned_data["new_password1"])
        messages.success(request, "Your password is changed. Your other sessions have ended.")
        return redirect("home")
    status = 400 if form.errors else 200
    return render(request, "accounts/password_change.html", {"form": form}, status=status)
