"""What the templates need to write forms out (_form_fields.html): BlankForm, the
process's memory of blank forms' markup, and each widget's attributes as Django works
them out.

Views import BlankForm from here; the template environment (socialsite.jinja2) installs
the functions. This module imports no app, so both may depend on it.
"""

from django.forms.widgets import Input, Textarea

from socialsite.memory import Memory

# Markup of blank forms, by form class and what its markup depends on: see
# remembered_form_fields. A few forms, a few KB each.
_blank_forms = Memory("blank forms", 256)


class BlankForm:
    """What a view passes for a blank (unbound, default) form of ``form_class`` whose
    markup is the same every time: remembered_form_fields writes it out once per
    process, and the form itself is made only then (making one deep-copies its fields,
    which a page showing the markup it already has need not pay for).

    The class says with its classmethod ``blank_markup_key()`` what its blank markup
    depends on besides the class (settings it reads, say); nothing else may change it.
    """

    __slots__ = ("form_class",)

    def __init__(self, form_class):
        self.form_class = form_class


def remembered_form_fields(render, form):
    """``render(form)`` (_form_fields.html's fresh_form_fields); for a BlankForm the
    markup of a new form of its class, from this process's memory if it has been
    written out before. Any other form (with its data and errors) is made afresh."""
    if not isinstance(form, BlankForm):
        return render(form)
    form_class = form.form_class
    key = (form_class, form_class.blank_markup_key())
    markup = _blank_forms.get(key)
    if markup is None:
        markup = render(form_class())
        _blank_forms.put(key, markup)
    return markup


# Django widget templates that are input.html and nothing else: _form_fields.html writes
# those widgets' markup itself. Any other widget is rendered by Django.
_PLAIN_INPUT_TEMPLATES = frozenset(
    f"django/forms/widgets/{kind}.html"
    for kind in (
        "text password email url number search tel hidden date datetime time color"
    ).split()
)


def form_widget(field):
    """What Django's widget template gets for a form field (a BoundField): ``type``,
    ``name``, ``value`` and ``attrs``, worked out by Django's own code so that the
    attributes and their order are those of ``{{ field }}``, plus ``kind``: "input",
    "textarea", or None for a widget _form_fields.html leaves to Django.

    Rendering a field through Django's widget templates costs many times what this and
    the macro do.
    """
    widget = field.field.widget
    attrs = field.build_widget_attrs({}, widget)
    if field.auto_id and "id" not in widget.attrs:
        attrs.setdefault("id", field.auto_id)
    context = widget.get_context(field.html_name, field.value(), attrs)["widget"]
    if isinstance(widget, Textarea):
        context["kind"] = "textarea"
    elif isinstance(widget, Input) and widget.template_name in _PLAIN_INPUT_TEMPLATES:
        context["kind"] = "input"
    else:
        context["kind"] = None
    return context
