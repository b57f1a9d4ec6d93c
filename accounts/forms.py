import datetime
import re
from types import SimpleNamespace

from django import forms
from django.contrib.auth import password_validation

from socialsite import throttling
from socialsite.actions import Invalid
from socialsite.actions import accounts as account_actions
from socialsite.connection import get_redis
from socialsite.repository import emails, users

from . import auth, devices
from .display_names import display_name_field

LOGIN_PATTERN = re.compile(r"[A-Za-z0-9_]{1,30}")

# Logins that would read as one of the site's own paths or roles. Profiles live at
# /@login/ so none of them could actually shadow a route, but they would confuse
# people (@admin, @support) and block routes we may want later (/tags/, /api/).
RESERVED_LOGINS = frozenset(
    """
    about accounts admin administrator api app apps assets auth blog dashboard
    explore help home i lists login logout media messages mod moderator moderators
    notifications null root search security settings signup socialsite static
    status statuses stream streaming support system tags timeline undefined
    """.split()
)

# ASVS: up to 128 characters are taken as they are, never truncated.
PASSWORD_MAX_LENGTH = 128


class _PasswordOwnerFields:
    """Stands in for a model's ``_meta``: UserAttributeSimilarityValidator looks up the
    verbose name of the field a password is too similar to, and fails (AttributeError)
    on an object without ``_meta``."""

    verbose_names = {"login": "login name", "name": "display name"}

    def get_field(self, name):
        return SimpleNamespace(verbose_name=self.verbose_names.get(name, name))


def password_owner(login, name):
    """What the password validators compare a password with."""
    return SimpleNamespace(login=login, name=name, _meta=_PasswordOwnerFields())


def validate_login(value):
    if not LOGIN_PATTERN.fullmatch(value):
        raise forms.ValidationError(
            "Use 1 to 30 letters, digits or underscores.", code="invalid_login"
        )
    if value.lower() in RESERVED_LOGINS:
        raise forms.ValidationError("That login name is reserved.", code="reserved_login")


def password_field(label):
    return forms.CharField(
        label=label,
        strip=False,
        max_length=PASSWORD_MAX_LENGTH,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
    )


EMAIL_TAKEN = "That address belongs to another account."


def email_field(label="Email address"):
    return forms.EmailField(
        label=label,
        max_length=254,
        help_text="Private: for verifying your account and resetting your password.",
        widget=forms.EmailInput(attrs={"autocomplete": "email"}),
    )


def check_email_free(address, uid=None):
    """``address`` if no account but ``uid`` has it (any case), else a form error."""
    owner = emails.owner(get_redis(), address)
    if owner is not None and owner != uid:
        raise forms.ValidationError(EMAIL_TAKEN, code="email_taken")
    return address


class SignupForm(forms.Form):
    username = forms.CharField(
        label="Login name",
        max_length=30,
        validators=[validate_login],
        help_text="Letters, digits and underscores; people will know you as @login.",
        widget=forms.TextInput(attrs={"autocomplete": "username", "autocapitalize": "none"}),
    )
    name = display_name_field()
    email = email_field()
    password1 = password_field("Password")
    password2 = password_field("Password again")

    def clean_email(self):
        return check_email_free(self.cleaned_data["email"])

    def clean_username(self):
        login = self.cleaned_data["username"]
        r = get_redis()
        if users.get_user_id(r, login) is not None:
            raise forms.ValidationError("That login name is taken.", code="taken")
        free_at = users.login_free_at(r, login)
        if free_at is not None:
            day = datetime.datetime.fromtimestamp(free_at, tz=datetime.UTC)
            raise forms.ValidationError(
                "That login name belonged to an account deleted lately; it is free "
                f"again on {day:%B} {day.day}, {day.year}.",
                code="reserved_login",
            )
        return login

    def clean(self):
        cleaned = super().clean()
        password1, password2 = cleaned.get("password1"), cleaned.get("password2")
        if password1 and password2 and password1 != password2:
            self.add_error("password2", "The two passwords differ.")
        elif password1:
            person = password_owner(cleaned.get("username"), cleaned.get("name"))
            try:
                password_validation.validate_password(password1, person)
            except forms.ValidationError as error:
                self.add_error("password1", error)
        return cleaned

    def save(self, actor):
        """Create the user (actions.accounts.sign_up, for the visitor ``actor``); None
        if the login was taken by a sign-up racing this one (said on its field).
        Throttled when the sign-up throttle refuses it."""
        data = self.cleaned_data
        try:
            return account_actions.sign_up(
                actor, data["username"], data["name"], data["email"], data["password1"]
            )
        except Invalid as refused:
            self.add_error(refused.field if refused.field in self.fields else None, refused.message)
            return None


class LoginForm(forms.Form):
    username = forms.CharField(
        label="Login name",
        max_length=30,
        widget=forms.TextInput(
            attrs={"autocomplete": "username", "autocapitalize": "none", "autofocus": True}
        ),
    )
    password = forms.CharField(
        label="Password",
        strip=False,
        # Longer than any password we accept, so that a long guess fails like any
        # wrong password instead of with a different message.
        max_length=4 * PASSWORD_MAX_LENGTH,
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
    )

    error_message = "That login name and password do not match an account."
    suspended_message = (
        "This account is suspended: it cannot log in, and it is shown nowhere, until "
        "the site's moderators undo the suspension."
    )

    def __init__(self, data=None, *, request=None, refusal=None, **kwargs):
        """``refusal``: what the throttle on the request's address counted
        (socialsite.throttling.count), or None. ``request``: whose failed log-ins the
        throttle on login names counts. After cleaning, ``refusal`` is the Counted that
        refused the attempt, or None if none did."""
        super().__init__(data, **kwargs)
        self.request = request
        self.refusal = refusal if throttling.is_refused(refusal) else None

    def clean(self):
        cleaned = super().clean()
        if self.refusal is not None:
            raise forms.ValidationError(self.refusal.message, code="throttled")
        login, password = cleaned.get("username"), cleaned.get("password")
        if login and password:
            # Counted as a failure before the password is hashed, given back if it
            # turns out right: attempts at once (from many addresses) cannot pass the
            # limit while their hashes are worked out.
            failure = None
            if self.request is not None:
                failure = self._count_failure(login)
            if throttling.is_refused(failure):
                self.refusal = failure
                raise forms.ValidationError(failure.message, code="throttled")
            self.user = auth.authenticate(login, password)
            # Said only to whoever has the password (an account being deleted is
            # simply no account).
            if self.user is not None and self.user.suspended:
                raise forms.ValidationError(self.suspended_message, code="suspended")
            if self.user is None or self.user.hidden:
                raise forms.ValidationError(self.error_message, code="invalid_login")
            throttling.refund(failure)
        return cleaned

    def _count_failure(self, login):
        # A browser that logged in to this login before has failures of its own: the
        # lock-out of the name, which anyone can bring about, does not stop it.
        device = devices.recognised(self.request, login)
        if device is not None:
            return throttling.count(self.request, "device_failures", device=device)
        return throttling.count(self.request, "login_failures", login=login)


class CurrentPasswordForm(forms.Form):
    """A form that asks for the account's password and checks it: what an action
    someone at an unattended browser must not take needs."""

    password = forms.CharField(
        label="Your password",
        strip=False,
        max_length=4 * PASSWORD_MAX_LENGTH,
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
    )

    def __init__(self, user, *args, **kwargs):
        self.user = user
        super().__init__(*args, **kwargs)

    def clean_password(self):
        password = self.cleaned_data["password"]
        if auth.authenticate(self.user.login, password) is None:
            raise forms.ValidationError("That is not your password.", code="wrong_password")
        return password


class DeleteAccountForm(CurrentPasswordForm):
    """Leaving the site: the password, checked, so that nobody at an unattended
    browser can delete someone's account."""


class PasswordChangeForm(forms.Form):
    old_password = forms.CharField(
        label="Current password",
        strip=False,
        max_length=4 * PASSWORD_MAX_LENGTH,
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
    )
    new_password1 = password_field("New password")
    new_password2 = password_field("New password again")

    def __init__(self, user, *args, refusal=None, **kwargs):
        """``refusal``: what the password change throttle counted for this attempt
        (socialsite.throttling.count), or None; if it refuses the attempt, the form
        is invalid with its message and no password is checked."""
        self.user = user
        self.refusal = refusal if throttling.is_refused(refusal) else None
        super().__init__(*args, **kwargs)

    def clean_old_password(self):
        old = self.cleaned_data["old_password"]
        if self.refusal is not None:
            return old  # not checked: clean() says why
        if auth.authenticate(self.user.login, old) is None:
            raise forms.ValidationError("Your current password was entered incorrectly.")
        return old

    def clean(self):
        cleaned = super().clean()
        if self.refusal is not None:
            raise forms.ValidationError(self.refusal.message, code="throttled")
        password1, password2 = cleaned.get("new_password1"), cleaned.get("new_password2")
        if password1 and password2 and password1 != password2:
            self.add_error("new_password2", "The two passwords differ.")
        elif password1:
            try:
                password_validation.validate_password(
                    password1, password_owner(self.user.login, self.user.name)
                )
            except forms.ValidationError as error:
                self.add_error("new_password1", error)
        return cleaned


class EmailChangeForm(CurrentPasswordForm):
    """A new address for the account, with its password (someone at an unattended
    browser must not take the account over by its reset mail)."""

    email = email_field("New email address")
    field_order = ["email", "password"]

    def clean_email(self):
        return check_email_free(self.cleaned_data["email"], self.user.id)


class PasswordResetForm(forms.Form):
    email = forms.EmailField(
        label="Your account's email address",
        max_length=254,
        widget=forms.EmailInput(attrs={"autocomplete": "email", "autofocus": True}),
    )


class SetPasswordForm(forms.Form):
    """A new password from a reset link: Django's validators, as at sign-up."""

    new_password1 = password_field("New password")
    new_password2 = password_field("New password again")

    def __init__(self, user, *args, **kwargs):
        self.user = user
        super().__init__(*args, **kwargs)

    def clean(self):
        cleaned = super().clean()
        password1, password2 = cleaned.get("new_password1"), cleaned.get("new_password2")
        if password1 and password2 and password1 != password2:
            self.add_error("new_password2", "The two passwords differ.")
        elif password1:
            try:
                password_validation.validate_password(
                    password1, password_owner(self.user["login"], self.user["name"])
                )
            except forms.ValidationError as error:
                self.add_error("new_password1", error)
        return cleaned
