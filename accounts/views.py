from django.conf import settings
from django.contrib import messages
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from socialsite import throttling
from socialsite.acting import actor_of
from socialsite.actions import Throttled
from socialsite.redirects import redirect_to_next, safe_next

from . import auth, devices
from .decorators import login_required
from .forms import LoginForm, PasswordChangeForm, SignupForm


@require_http_methods(["GET", "POST"])
def signup(request):
    if request.user.is_authenticated:
        return redirect("home")
    form = SignupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        # Counted once the form is valid: each of these is about to make an account
        # (and hash its password).
        counted = throttling.count(request, "signup")
        # Kept for the visitor's Actor: the action, which names this throttle, finds its
        # use counted (this page answers its own 429, keeping the form).
        throttling.counted_for(request)["signup"] = counted
        try:
            uid = form.save(actor_of(request))
        except Throttled:
            form.add_error(None, counted.message)
            template, context = "accounts/signup.html", {"form": form}
            return throttling.too_many_requests(request, counted, template, context)
        if uid is not None:
            user = auth.load_user(uid)
            auth.login(request, user)
            messages.success(request, f"Welcome, {user.name}! Your account is ready.")
            if settings.EMAIL_VERIFICATION != "off" and user.email_state == "unverified":
                address = form.cleaned_data["email"]
                messages.info(request, f"A link to verify {address} is on its way.")
            response = devices.remember(redirect("home"), user)
            return throttling.set_headers(response, counted)
    status = 400 if form.errors else 200
    return render(request, "accounts/signup.html", {"form": form}, status=status)


@require_http_methods(["GET", "POST"])
def login(request):
    next_url = safe_next(request)
    if request.user.is_authenticated:
        return redirect_to_next(request)
    # Every attempt counts against the client's address, before anything else: a
    # refused one costs no password hashing (LoginForm.clean).
    attempt = throttling.count(request, "login") if request.method == "POST" else None
    form = LoginForm(request.POST or None, request=request, refusal=attempt)
    if request.method == "POST" and form.is_valid():
        auth.login(request, form.user)
        messages.success(request, f"Welcome back, {form.user.name}.")
        response = devices.remember(redirect_to_next(request), form.user)
        return throttling.set_headers(response, attempt)
    context = {"form": form, "next": next_url}
    if form.refusal is not None:
        return throttling.too_many_requests(request, form.refusal, "accounts/login.html", context)
    status = 400 if form.errors else 200
    response = render(request, "accounts/login.html", context, status=status)
    return throttling.set_headers(response, attempt)


@require_POST
def logout(request):
    auth.logout(request)
    messages.info(request, "You have logged out.")
    return redirect("home")


@require_http_methods(["GET", "POST"])
@login_required
def password_change(request):
    # Counted before the form checks the current password (a hash).
    attempt = throttling.count(request, "password_change") if request.method == "POST" else None
    form = PasswordChangeForm(request.user, request.POST or None, refusal=attempt)
    if request.method == "POST" and form.is_valid():
        auth.change_password(request, request.user, form.cleaned_data["new_password1"])
        messages.success(request, "Your password is changed. Your other sessions have ended.")
        # The change revoked every device cookie of the account; this browser gets a
        # new one.
        response = devices.remember(redirect("home"), request.user)
        return throttling.set_headers(response, attempt)
    context = {"form": form}
    if form.refusal is not None:
        template = "accounts/password_change.html"
        return throttling.too_many_requests(request, form.refusal, template, context)
    status = 400 if form.errors else 200
    response = render(request, "accounts/password_change.html", context, status=status)
    return throttling.set_headers(response, attempt)
