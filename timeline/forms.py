from django import forms
from django.conf import settings

from accounts.display_names import MAX_LENGTH as DISPLAY_NAME_MAX_LENGTH
from accounts.display_names import display_name_field
from media import attachments, images
from socialsite.actions import Invalid, rules
from socialsite.actions import polls as poll_actions
from socialsite.actions import settings as settings_actions
from socialsite.actions import statuses as statuses_actions
from socialsite.repository import direct, entities, limits, moderation

from .jinja_helpers import abstime


def _checked(rule, value):
    """``rule(value)`` (a check of socialsite.actions.rules), its Invalid said as the
    field's error."""
    try:
        return rule(value)
    except Invalid as refused:
        raise forms.ValidationError(refused.message) from None


def parse_location(value):
    """ "lat,lon" -> (lat, lon) as floats within range; ValidationError otherwise."""
    parts = [part.strip() for part in value.split(",")]
    try:
        if len(parts) != 2:
            raise ValueError
        lat, lon = float(parts[0]), float(parts[1])
    except ValueError:
        raise forms.ValidationError(
            'Give a location as "latitude,longitude", for example 48.8566,2.3522.'
        ) from None
    if not (-90 <= lat <= 90 and -180 <= lon <= 180):
        raise forms.ValidationError(
            "Latitude must be between -90 and 90, longitude between -180 and 180."
        )
    return lat, lon


def _coordinate(value):
    text = f"{value:.6f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


class _MultipleFileInput(forms.FileInput):
    allow_multiple_selected = True


class StatusImagesField(forms.FileField):
    """A status's images (the ``media`` field, repeated): at most
    attachments.MAX_IMAGES files, cleaned to the list of them in order. Counting them
    toward the throttle and making them (checked, decoded, made into their sizes) is
    the act's: actions.uploads.prepare_images, which post_status calls first."""

    def __init__(self, **options):
        options.setdefault("required", False)
        options.setdefault(
            "widget",
            _MultipleFileInput(attrs={"accept": "image/jpeg,image/png,image/webp,image/gif"}),
        )
        super().__init__(**options)

    def clean(self, data, initial=None):
        uploads = [upload for upload in (data or []) if upload]
        if len(uploads) > attachments.MAX_IMAGES:
            raise forms.ValidationError(
                f"A status may have at most {attachments.MAX_IMAGES} images; you chose"
                f" {len(uploads)}."
            )
        for upload in uploads:
            super().clean(upload, initial)
        return uploads


# Polls: how long a poll may be open, in seconds (actions.polls: 5 minutes to 7 days).
POLL_DURATIONS = [
    (300, "5 minutes"),
    (1800, "30 minutes"),
    (3600, "1 hour"),
    (6 * 3600, "6 hours"),
    (86400, "1 day"),
    (3 * 86400, "3 days"),
    (7 * 86400, "7 days"),
]
POLL_OPTION_FIELDS = ("poll_option_1", "poll_option_2", "poll_option_3", "poll_option_4")
# What a refused post's kept draft holds of its poll.
POLL_DRAFT_FIELDS = (*POLL_OPTION_FIELDS, "poll_expires_in", "poll_multiple", "poll_hide_totals")


class StatusForm(forms.Form):
    message = forms.CharField(
        label="What is happening?",
        required=False,
        widget=forms.Textarea(attrs={"rows": 3}),
    )
    location = forms.CharField(
        label="Location (optional)",
        required=False,
        max_length=64,
        widget=forms.TextInput(attrs={"placeholder": "latitude,longitude"}),
    )
    media = StatusImagesField(
        label="Images",
        help_text=f"Up to {attachments.MAX_IMAGES} JPEG, PNG, WebP or GIF images of at most"
        " 16 MiB each (an animated GIF shows its first frame).",
    )
    spoiler_text = forms.CharField(
        label="Content warning",
        required=False,
        max_length=attachments.SPOILER_MAX_LENGTH,
        help_text="Shown instead of the text and images until a reader opens it.",
    )
    sensitive = forms.BooleanField(
        label="Sensitive: hide the text and images until opened", required=False
    )
    # Polls: up to four options (those left empty are none), how long it is open,
    # single or multiple choice, totals hidden until it ends.
    poll_option_1 = forms.CharField(
        label="Option 1", required=False, max_length=poll_actions.OPTION_MAX_LENGTH
    )
    poll_option_2 = forms.CharField(
        label="Option 2", required=False, max_length=poll_actions.OPTION_MAX_LENGTH
    )
    poll_option_3 = forms.CharField(
        label="Option 3 (optional)", required=False, max_length=poll_actions.OPTION_MAX_LENGTH
    )
    poll_option_4 = forms.CharField(
        label="Option 4 (optional)", required=False, max_length=poll_actions.OPTION_MAX_LENGTH
    )
    poll_expires_in = forms.TypedChoiceField(
        label="Open for",
        choices=POLL_DURATIONS,
        coerce=int,
        initial=86400,
        required=False,
        empty_value=86400,
    )
    poll_multiple = forms.BooleanField(label="Several choices allowed", required=False)
    poll_hide_totals = forms.BooleanField(
        label="Hide the totals until the poll ends", required=False
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.max_length = settings.STATUS_MAX_LENGTH
        self.fields["message"].widget.attrs["data-max-length"] = self.max_length

    @classmethod
    def blank_markup_key(cls):
        # The blank form's markup (socialsite/form_markup.BlankForm) changes only with the
        # length limit, the one thing __init__ sets that the class does not.
        return settings.STATUS_MAX_LENGTH

    def clean_message(self):
        # The action's own rule (the API's too), said as the field's error.
        try:
            return statuses_actions.checked_text(self.cleaned_data["message"])
        except Invalid as refusal:
            raise forms.ValidationError(refusal.message) from None

    def descriptions(self):
        """The alt texts sent (``media_description``, repeated), in order: a bound
        form's, from its data (a QueryDict, or a kept draft's dict); none otherwise."""
        if not self.is_bound:
            return []
        data = self.data
        if hasattr(data, "getlist"):
            values = data.getlist("media_description")
        else:
            values = data.get("media_description") or []
        if isinstance(values, str):
            values = [values]
        return [str(value).replace("\r\n", "\n").strip() for value in values]

    def description_values(self):
        """What the form's alt-text fields show: one value per field, padded."""
        sent = self.descriptions()[: attachments.MAX_IMAGES]
        return sent + [""] * (attachments.MAX_IMAGES - len(sent))

    def clean(self):
        data = super().clean()
        descriptions = self.descriptions()
        for number, alt in enumerate(descriptions, 1):
            if len(alt) > attachments.ALT_MAX_LENGTH:
                self.add_error(
                    None,
                    f"The description of image {number} is {len(alt):,} characters; at most"
                    f" {attachments.ALT_MAX_LENGTH:,} are kept.",
                )
        data["media_description"] = descriptions
        # Polls: the options written make a poll, checked by the action's rules.
        data["poll"] = None
        options = [str(data.get(name) or "").strip() for name in POLL_OPTION_FIELDS]
        options = [option for option in options if option]
        if options:
            try:
                data["poll"] = poll_actions.checked_poll(
                    poll_actions.NewPoll(
                        tuple(options),
                        int(data.get("poll_expires_in") or 86400),
                        bool(data.get("poll_multiple")),
                        bool(data.get("poll_hide_totals")),
                    )
                )
            except Invalid as refusal:
                self.add_error(None, refusal.message)
            if data.get("media"):
                self.add_error(None, "A status with a poll cannot have images.")
        if not data.get("message") and not data.get("media") and "message" not in self.errors:
            if "media" not in self.errors:
                self.add_error("message", "Write something, or add an image, before posting.")
        return data

    def clean_location(self):
        value = self.cleaned_data["location"]
        if not value:
            return ""
        lat, lon = parse_location(value)
        # Stored normalized ("lat,lon", at most 6 decimals: about 10 cm), the way the
        # streaming filters read it back.
        return f"{_coordinate(lat)},{_coordinate(lon)}"


# How long a mute lasts: the form's value -> (what the page says, milliseconds or None
# for a mute without end).
MUTE_DURATIONS = {
    "1h": ("for 1 hour", 3600 * 1000),
    "1d": ("for 1 day", 24 * 3600 * 1000),
    "7d": ("for 7 days", 7 * 24 * 3600 * 1000),
    "forever": ("until you unmute them", None),
}


def mute_until(ends_ms, zone="UTC"):
    """How a mute's end reads on a page: "until you unmute them", or "until 3 May 2026,
    14:05 CEST" in the reader's time zone (``zone``)."""
    if not ends_ms:
        return MUTE_DURATIONS["forever"][0]
    return f"until {abstime(ends_ms / 1000, zone)}"


class MuteForm(forms.Form):
    duration = forms.ChoiceField(
        label="Mute",
        choices=[(value, label) for value, (label, _) in MUTE_DURATIONS.items()],
        initial="forever",
        required=False,
    )

    def clean_duration(self):
        # No duration given (a form without the field): until unmuted, the default.
        return self.cleaned_data["duration"] or "forever"


class TimeZoneForm(forms.Form):
    time_zone = forms.ChoiceField(
        label="Time zone",
        choices=(),
        help_text="Statuses show their date and time in it (on hover and focus).",
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["time_zone"].choices = [(zone, zone) for zone in settings_actions.time_zones()]


class PrivacyForm(forms.Form):
    """The settings page's form: who sees the statuses, and the theme."""

    private = forms.BooleanField(
        label="Private account",
        required=False,
        help_text=(
            "Only the followers you approve see your statuses; anyone else who follows "
            "you sends a request. Making the account public again approves the "
            "requests waiting."
        ),
    )
    # The theme (socialsite/actions/settings.py): "" follows the system's.
    theme = forms.ChoiceField(
        label="Theme",
        choices=[("", "System"), ("light", "Light"), ("dark", "Dark")],
        required=False,
        help_text="System follows your device's light or dark setting.",
    )


class ReplyForm(StatusForm):
    """The status form of a thread's page: the same fields and checks, worded for a reply."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["message"].label = "Your reply"


class ListNameForm(forms.Form):
    """A named list's name: checked as the lists action checks it
    (socialsite.actions.rules.check_list_name), said beside the field."""

    name = forms.CharField(
        label="List name",
        # The browser's bound; the rule counts the name once normalized (the action's).
        widget=forms.TextInput(attrs={"maxlength": rules.LIST_NAME_MAX_LENGTH}),
        error_messages={"required": rules.LIST_NAME_REQUIRED},
    )

    @classmethod
    def blank_markup_key(cls):
        return None  # the blank form (the lists page's) is always the same

    def clean_name(self):
        return _checked(rules.check_list_name, self.cleaned_data["name"])


class ListMemberForm(forms.Form):
    """Whom to add to a list, or take off it: a login name."""

    login = forms.CharField(
        label="Login name",
        max_length=30,
        error_messages={"required": "Give the login name of someone you follow."},
        widget=forms.TextInput(attrs={"autocapitalize": "none", "placeholder": "login"}),
    )

    def clean_login(self):
        return self.cleaned_data["login"].strip().removeprefix("@")


class PictureField(forms.FileField):
    """An uploaded picture's bytes (media/images.read_upload: refused past MAX_BYTES
    before they are read), or None when no file was chosen. What the bytes hold is
    the profile action's to check and decode (socialsite/actions/profiles.py)."""

    def __init__(self, **options):
        options.setdefault("required", False)
        super().__init__(**options)
        # Browsers offer the accepted kinds first; the content is what is checked.
        self.widget = forms.FileInput(attrs={"accept": "image/jpeg,image/png,image/webp,image/gif"})

    def clean(self, data, initial=None):
        upload = super().clean(data, initial)
        if not upload:
            return None
        try:
            return images.read_upload(upload)
        except images.ImageRefused as refused:
            raise forms.ValidationError(str(refused)) from None


class ProfileForm(forms.Form):
    """/settings/profile/: what the profile page shows of an account. Its fields are
    checked by the rules the profile action applies (socialsite.actions.rules), so that
    every problem is said at once beside its field; the pictures are decoded by the
    action."""

    name = display_name_field(
        help_text="Shown beside your login on your statuses and profile; "
        f"{DISPLAY_NAME_MAX_LENGTH} characters at most."
    )
    bio = forms.CharField(
        label="Bio",
        required=False,
        strip=True,
        widget=forms.Textarea(attrs={"rows": 4}),
        help_text=f"At most {rules.BIO_MAX_LENGTH} characters; links, @mentions and"
        " #tags are linked as in statuses.",
    )
    website = forms.URLField(
        label="Website",
        required=False,
        max_length=rules.WEBSITE_MAX_LENGTH,
        assume_scheme="https",
        help_text="An http:// or https:// address, linked from your profile.",
    )
    avatar = PictureField(
        label="Avatar",
        help_text="A JPEG, PNG, WebP or GIF image of at most 16 MiB, cropped to a square.",
    )
    remove_avatar = forms.BooleanField(label="Remove the avatar", required=False)
    header = PictureField(
        label="Header",
        help_text="A JPEG, PNG, WebP or GIF image of at most 16 MiB, cropped to 3:1 and"
        " shown at most 1500 x 500 pixels.",
    )
    remove_header = forms.BooleanField(label="Remove the header", required=False)

    def clean_bio(self):
        return _checked(rules.check_bio, self.cleaned_data["bio"])

    def clean_website(self):
        return _checked(rules.check_website, self.cleaned_data["website"])

    def clean(self):
        data = super().clean()
        for field in ("avatar", "header"):
            if data.get(field) is not None and data.get(f"remove_{field}"):
                self.add_error(f"remove_{field}", rules.both_for_a_picture(field))
        return data


def pictures_sent(files):
    """How many pictures a profile form's ``request.FILES`` carries: each counts toward
    THROTTLE_MEDIA, before any is decoded."""
    return sum(1 for field in ("avatar", "header") if files.get(field))


# --- direct messages (direct.py) ---------------------------------------------------------


class _MessageField(forms.CharField):
    def to_python(self, value):
        # A line break as one character (browsers send a textarea's as CR LF), before
        # its length is counted: as the message's action counts it (actions.direct).
        return super().to_python(value).replace("\r\n", "\n")


def _message_field(label):
    return _MessageField(
        label=label,
        max_length=direct.MESSAGE_MAX_CHARACTERS,
        strip=False,
        widget=forms.Textarea(attrs={"rows": 3}),
        error_messages={
            "required": "Write a message: it is empty.",
            "max_length": (
                f"A message has at most {direct.MESSAGE_MAX_CHARACTERS:,} characters; "
                "this one has %(show_value)d."
            ),
        },
    )


def _one_message_text(text):
    # A line break as one character (browsers send a textarea's as CR LF).
    text = text.replace("\r\n", "\n")
    if not text.strip():
        raise forms.ValidationError("Write a message: it is empty.")
    return text


class MessageForm(forms.Form):
    """A message into a conversation."""

    message = _message_field("Your message")

    def clean_message(self):
        return _one_message_text(self.cleaned_data["message"])


class NewConversationForm(forms.Form):
    """A message to one or more people: a conversation of two, or a new group."""

    to = forms.CharField(
        label="To",
        max_length=(entities.MAX_LOGIN_LENGTH + 2) * direct.MAX_OTHER_MEMBERS,
        help_text=(
            f"Logins, separated by spaces or commas: one person, or up to "
            f"{direct.MAX_OTHER_MEMBERS} for a group."
        ),
        error_messages={"required": "Say whom the message is for."},
    )
    message = _message_field("Message")

    @classmethod
    def blank_markup_key(cls):
        return None  # the blank form's markup depends on nothing but the class

    def clean_to(self):
        logins = [
            login.removeprefix("@")
            for login in self.cleaned_data["to"].replace(",", " ").split()
            if login.removeprefix("@")
        ]
        logins = list(dict.fromkeys(login.lower() for login in logins))
        if not logins:
            raise forms.ValidationError("Say whom the message is for.")
        # How many: the action's rule (actions.direct.start), which leaves out the sender.
        return logins

    def clean_message(self):
        return _one_message_text(self.cleaned_data["message"])


class MessagesFromForm(forms.Form):
    """Who may start a conversation with the account."""

    messages_from = forms.ChoiceField(
        label="Who may send you direct messages",
        choices=[
            ("everyone", "Everyone (people you do not follow land in your requests)"),
            ("following", "Only people you follow"),
            ("nobody", "Nobody"),
        ],
        widget=forms.RadioSelect,
        error_messages={"required": "Choose who may send you direct messages."},
    )


class MessageReportForm(forms.Form):
    """A report about a message: a reason (the report form's) and a comment."""

    reason = forms.ChoiceField(
        label="What is wrong?",
        choices=[("", "Choose a reason"), *moderation.REASONS.items()],
        error_messages={"required": "Say what is wrong: pick a reason."},
    )
    comment = forms.CharField(
        label="Anything the moderators should know (optional)",
        required=False,
        max_length=limits.REPORT_COMMENT_MAX_LENGTH,
    )
