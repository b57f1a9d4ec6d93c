"""The Jinja2 templates' helpers: the form macros write what Django's widget and label
templates wrote, the filters give what Django's did, one CSRF token per page."""

import datetime
import re
from types import SimpleNamespace

import pytest
from django.template import engines
from django.template.defaultfilters import linebreaksbr as django_linebreaksbr
from markupsafe import Markup

from accounts.forms import LoginForm, PasswordChangeForm, SignupForm
from socialsite.status_markup import StatusLinks, linebreaksbr
from timeline import jinja_helpers
from timeline.forms import StatusForm
from timeline.jinja_helpers import reltime

FIELD_MACROS = engines["jinja2"].from_string(
    '{% import "_form_fields.html" as f %}'
    "{% for field in form %}{{ f.label(field) }}\n{{ f.widget(field) }}\n{% endfor %}"
)


def django_markup(form):
    """What Django itself renders for each field: its label tag, then its widget."""
    return "".join(f"{field.label_tag()}\n{field}\n" for field in form)


def forms():
    user = SimpleNamespace(login="alice", name="Alice")
    yield SignupForm()
    yield SignupForm({"username": "al ice", "name": "<b>x</b>", "password1": "a", "password2": "b"})
    yield LoginForm()
    yield LoginForm({"username": 'a"b', "password": "x"})
    yield PasswordChangeForm(user)
    yield PasswordChangeForm(user, {"old_password": "x", "new_password1": "y"})
    yield StatusForm()
    yield StatusForm({"message": "<script>'x'</script>\nline", "location": "<i>1</i>,2"})
    yield StatusForm({"message": "", "location": ""})


@pytest.mark.parametrize("form", list(forms()), ids=lambda form: type(form).__name__)
def test_the_form_macros_write_what_django_renders(form):
    if form.is_bound:
        form.is_valid()  # the errors, shown by both
    # Jinja2 escapes quotes as &#34; and &#39;, Django as &quot; and &#x27;: the same text.
    ours = FIELD_MACROS.render({"form": form}).replace("&#34;", "&quot;").replace("&#39;", "&#x27;")
    assert ours == django_markup(form)


def test_a_widget_the_macros_do_not_know_is_rendered_by_django():
    from django import forms as django_forms

    class Form(django_forms.Form):
        pick = django_forms.ChoiceField(choices=[("a", "A")])

    form = Form()
    assert FIELD_MACROS.render({"form": form}) == django_markup(form)


@pytest.mark.parametrize(
    "text", ["plain", "<b>bold</b> & 'quotes' \"too\"", "one\ntwo", "one\r\ntwo\rthree", ""]
)
def test_linebreaksbr_is_djangos(text):
    assert linebreaksbr(text) == django_linebreaksbr(text)
    assert hasattr(linebreaksbr(text), "__html__")  # safe: escaped already


NOW = datetime.datetime(2025, 3, 10, 12, 0, tzinfo=datetime.UTC)


@pytest.mark.parametrize(
    ("seconds_ago", "shown"),
    [
        (0, "now"),
        (59, "now"),
        (60, "1m"),
        (3599, "59m"),
        (3600, "1h"),
        (86399, "23h"),
        (86400, "1d"),
        (6 * 86400, "6d"),
        (7 * 86400, "Mar 3"),
        (70 * 86400, "Dec 30, 2024"),
    ],
)
def test_reltime(seconds_ago, shown):
    assert reltime(str(NOW.timestamp() - seconds_ago), NOW) == shown


def test_a_page_shows_one_csrf_token_in_all_its_forms(rf):
    from django.middleware.csrf import _unmask_cipher_token, get_token

    template = engines["jinja2"].from_string("{{ csrf_input }} {{ csrf_input }} {{ csrf_input }}")
    request = rf.get("/")
    html = template.render(request=request)
    tokens = re.findall(r'name="csrfmiddlewaretoken" value="([^"]+)"', html)
    assert len(tokens) == 3 and len(set(tokens)) == 1
    # Django's own token: the secret it keeps for the cookie, masked
    assert _unmask_cipher_token(tokens[0]) == _unmask_cipher_token(get_token(request))
    # and the next page gets a token masked anew
    assert re.findall(r'value="([^"]+)"', template.render(request=rf.get("/")))[0] != tokens[0]


STATUS_LIST = engines["jinja2"].from_string(
    '{% from "_status.html" import status_list %}'
    "{{ status_list(items, request, csrf_input, status_links()) }}"
)
STATUS_ARTICLE = engines["jinja2"].from_string(
    '{% from "_status.html" import status_article %}'
    "{{ status_article(status, status_links(), token_input, delete_next, actions, liked,"
    " reposted, when) }}"
)


def viewer_request(rf, uid, path="/"):
    request = rf.get(path)
    request.user = SimpleNamespace(id=uid)
    return request


def articles_of(html):
    return re.findall(r"<article.*?</article>", html, re.DOTALL)


def test_status_markup_is_made_once_and_never_shown_stale(rf):
    made = []

    def article(
        status, links, csrf_input, delete_next, actions, liked, reposted, when=None, zone="UTC"
    ):
        made.append(when)
        return Markup("<p>{} {}</p>").format(status["author"]["name"], when)

    now = datetime.datetime.now(datetime.UTC).timestamp()
    status = {"id": 7, "uid": 9, "posted": now - 30, "message": "hi", "location": "",
              "author": {"login": "alice", "name": "Alice"}}  # fmt: skip
    request, links = viewer_request(rf, 1), StatusLinks()

    def show(status, liked=()):
        return jinja_helpers.status_list_markup(article, [status], request, "", links, None, liked)

    first = show(status)
    assert show(dict(status)) == first
    assert made == ["now"]  # the second time from memory
    renamed = {**status, "author": {"login": "alice", "name": "Alice B."}}
    assert show(renamed) == "<p>Alice B. now</p>"
    older = {**status, "posted": now - 300}
    assert show(older) == "<p>Alice 5m</p>"
    # Any field the status has counts, not only those shown today.
    assert show({**older, "likes": 3}) == "<p>Alice 5m</p>"
    assert made == ["now", "now", "5m", "5m"]
    # Each viewer's buttons have markup of their own; the viewer's repost mark is not
    # compared with the status.
    show({**older, "likes": 3}, liked={7})
    show({**older, "likes": 3, "viewer_reposted": True})
    show({**older, "likes": 3, "viewer_reposted": True})
    assert made == ["now", "now", "5m", "5m", "5m", "5m"]


def test_remembered_status_markup_is_the_same_as_made_fresh(rf):
    status = {"id": 3, "uid": 9, "posted": 1_700_000_000.5, "location": "1.5,2.5",
              "message": "<script>alert('x')</script>\nsecond line",
              "author": {"login": "bob", "name": "Bob <b>&</b>"}}  # fmt: skip
    request = viewer_request(rf, None)  # a visitor: no forms
    first = STATUS_LIST.render({"items": [status]}, request)
    assert STATUS_LIST.render({"items": [status]}, request) == first
    fresh = STATUS_ARTICLE.render({"status": status, "token_input": None}, request)
    assert first == fresh
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;<br>second line" in first
    assert "Bob &lt;b&gt;&amp;&lt;/b&gt;" in first and "<b>" not in first
    assert 'href="/@bob/"' in first and 'href="/@bob/3/"' in first
    assert first.count('class="status-head"') == 1 and "Delete" not in first


def test_a_status_list_has_delete_forms_on_the_viewers_statuses_only(rf):
    posted = datetime.datetime.now(datetime.UTC).timestamp() - 90
    bob = {"login": "bob", "name": "Bob <b>&</b>"}
    me = {"login": "me", "name": "Me"}
    items = [
        {"id": 5, "uid": 1, "posted": posted, "message": "mine", "author": me},
        {"id": 4, "uid": 9, "posted": posted, "message": "<i>his</i>", "author": bob},
        {"id": 3, "uid": 9, "posted": posted, "message": "his too", "author": bob},
    ]  # fmt: skip
    request = viewer_request(rf, 1, "/?before=6")
    html = STATUS_LIST.render({"items": items}, request)
    assert html.count('class="icon-button like"') == 3  # Like and Repost buttons on each
    for sid in (5, 4, 3):  # each posting the page's one form to its own URL
        like = f'form="status-actions" class="icon-button like" formaction="/statuses/{sid}/like/"'
        assert like in html
        assert f'formaction="/statuses/{sid}/repost/" aria-pressed="false">' in html
    assert html.count('<form id="status-actions" method="post" data-time-zone="UTC" hidden>') == 1
    # The page's form and the delete form of the viewer's own status lead back here.
    assert html.count('<input type="hidden" name="next" value="/?before=6">') == 2
    articles = articles_of(html)
    assert [re.search(r'id="status-(\d+)"', a).group(1) for a in articles] == ["5", "4", "3"]
    assert 'action="/statuses/5/delete/"' in articles[0]
    assert '<input type="hidden" name="next" value="/?before=6">' in articles[0]
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', articles[0]).group(1)
    assert len(token) == 64  # the page's own token, in its every form
    assert html.count(f'name="csrfmiddlewaretoken" value="{token}"') == 2
    assert not any('class="delete"' in article for article in articles[1:])
    assert "&lt;i&gt;his&lt;/i&gt;" in html and "<i>" not in html and "<b>" not in html
    # Each is exactly what the status_article macro makes of it.
    for status, article in zip(items, articles, strict=True):
        own = status["uid"] == 1
        context = {"status": status, "when": "1m", "delete_next": "/?before=6" if own else None,
                   "actions": True, "token_input": Markup(
                       '<input type="hidden" name="csrfmiddlewaretoken" value="{}">'
                   ).format(token) if own else None}  # fmt: skip
        assert STATUS_ARTICLE.render(context, request) == article
    # Shown again (others' from memory), the delete form gets this page's new token.
    again = articles_of(STATUS_LIST.render({"items": items}, request))

    def tokenless(articles):
        return [re.sub(r'csrfmiddlewaretoken" value="[^"]*"', "", a) for a in articles]

    assert tokenless(again) == tokenless(articles)
    assert again[0] != articles[0] and "csrfmiddlewaretoken" in again[0]
    assert 'value=""' not in again[0]


def test_a_status_list_escapes_a_part_that_is_not_markup(rf):
    # The macro makes Markup; a plain string (from any other renderer) is escaped.
    posted = datetime.datetime.now(datetime.UTC).timestamp()
    me, bo = {"login": "me", "name": "Me"}, {"login": "bo", "name": "Bo"}
    items = [
        {"id": 987_001, "uid": 1, "posted": posted, "message": "a", "author": me},
        {"id": 987_002, "uid": 2, "posted": posted, "message": "b", "author": bo},
    ]  # fmt: skip

    def article(status, links, csrf_input, *options):
        if csrf_input is not None:
            return Markup("<article>mine</article>")
        return "<b>not markup</b>"

    html = jinja_helpers.status_list_markup(
        article, items, viewer_request(rf, 1), "", StatusLinks(), None, None
    )
    assert html == "<article>mine</article>\n&lt;b&gt;not markup&lt;/b&gt;"
    assert isinstance(html, Markup)


FORM_FIELDS = engines["jinja2"].from_string(
    '{% from "_form_fields.html" import form_fields, fresh_form_fields %}'
    "{{ form_fields(form) }}|{{ fresh_form_fields(form) }}"
)


REMEMBERED_FORM_FIELDS = engines["jinja2"].from_string(
    '{% from "_form_fields.html" import form_fields %}{{ form_fields(form) }}'
)


def test_a_blank_status_form_is_remembered_and_the_same_as_made_fresh(settings):
    from socialsite import form_markup

    blank = form_markup.BlankForm(StatusForm)
    remembered = REMEMBERED_FORM_FIELDS.render({"form": blank})
    fresh = FORM_FIELDS.render({"form": StatusForm()}).split("|")[1]
    assert remembered == fresh and 'data-max-length="' in fresh
    assert (StatusForm, StatusForm.blank_markup_key()) in form_markup._blank_forms
    settings.STATUS_MAX_LENGTH = 17  # what the class says its markup depends on
    remembered = REMEMBERED_FORM_FIELDS.render({"form": blank})
    assert 'data-max-length="17"' in remembered
    assert remembered == FORM_FIELDS.render({"form": StatusForm()}).split("|")[1]


def test_forms_other_than_blank_forms_are_made_afresh():
    from socialsite import form_markup

    form_markup._blank_forms.clear()
    for form in (StatusForm({"message": "", "location": "<b>"}), LoginForm(), StatusForm()):
        remembered, fresh = FORM_FIELDS.render({"form": form}).split("|")
        assert remembered == fresh
    assert len(form_markup._blank_forms) == 0
    bound = FORM_FIELDS.render({"form": StatusForm({"message": ""})}).split("|")[0]
    assert "Write something, or add an image, before posting." in bound


def test_a_templates_globals_are_the_environments_and_its_own():
    env = engines["jinja2"].env
    template = env.from_string("{{ greeting }} {{ url('home') }}", globals={"greeting": "hi"})
    assert template.render() == "hi /"
    assert "greeting" not in env.globals  # a template's own globals stay its own
    assert env.from_string("{{ greeting is defined }}").render() == "False"
