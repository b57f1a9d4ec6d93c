from django import forms
from django.conf import settings


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


class StatusForm(forms.Form):
    message = forms.CharField(
        label="What is happening?",
        widget=forms.Textarea(attrs={"rows": 3}),
        error_messages={"required": "Write something before posting."},
    )
    location = forms.CharField(
        label="Location (optional)",
        required=False,
        max_length=64,
        widget=forms.TextInput(attrs={"placeholder": "latitude,longitude"}),
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
        message = self.cleaned_data["message"]
        if len(message) > self.max_length:
            raise forms.ValidationError(
                f"A status is at most {self.max_length} characters; this one has {len(message)}."
            )
        return message

    def clean_location(self):
        value = self.cleaned_data["location"]
        if not value:
            return ""
        lat, lon = parse_location(value)
        # Stored normalized ("lat,lon", at most 6 decimals: about 10 cm), the way the
        # streaming filters read it back.
        return f"{_coordinate(lat)},{_coordinate(lon)}"


class ReplyForm(StatusForm):
    """The status form of a thread's page: the same fields and checks, worded for a reply."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["message"].label = "Your reply"
