"""``manage.py bench_filters``: the home page of a reader with keyword filters, against
/healthz, through gunicorn (the floor: at least 30% of /healthz).

bench_web's run (benchmarks/web.py: its gunicorn, login, load generator and verdict on
gunicorn CPU per request), whose seeding is followed here by FILTERS keyword filters of
KEYWORDS keywords each for the reader, in the home context: half hide, half warn, one
warn filter matching WARNED of the page's statuses (collapsed behind "Filtered"), the
rest matching none, as most keywords match nothing on a given page (the hide filters
too: bench_web's run checks that the page shows its 30 statuses; a hidden status would
cost less, not more, than a shown one). The filters are written through the repository, in the
benchmark's own Redis.
"""

from django.core.management.base import CommandError

from socialsite.repository import filters, users

from .web import HOME_AUTHORS, WebBenchmark

FILTERS = 10
KEYWORDS = 5
# The seeded statuses end with "(<i>)": whole-word keywords "1" .. match those.
WARNED = ("3", "13", "23")


def reader_filters():
    """The FILTERS filters as (title, action, keywords)."""
    made = []
    for n in range(FILTERS):
        action = "warn" if n % 2 == 0 else "hide"
        words = [f"nothing{n}x{k}" for k in range(KEYWORDS)]
        if n == 0:
            words[: len(WARNED)] = WARNED
        made.append((f"Filter {n}", action, words))
    return made


class FiltersBenchmark(WebBenchmark):
    """One run of ``manage.py bench_filters`` with bench_web's options."""

    PAGES = WebBenchmark.PAGES[:2]  # /healthz and the home page with its filters
    HOME_VARIANT = f"home with {FILTERS} filters of {KEYWORDS} keywords"

    def seed(self, r, followers, pulled=0):
        seeded = super().seed(r, followers, pulled)
        uid = users.get_user_id(r, seeded["reader"])
        for title, action, words in reader_filters():
            keywords = [(0, word, True) for word in words]
            filters.save_filter(r, uid, 0, title=title, context=["home"], action=action,
                                keywords=keywords, expires_ms=0)  # fmt: skip
        self.stdout.write(
            f"Then the reader made {FILTERS} filters of {KEYWORDS} keywords each (home):"
            f" the home page shows {HOME_AUTHORS} statuses, {len(WARNED)} of them filtered."
        )
        return seeded

    def measure_pages(self, r, process, port, seeded, options):
        # The page measured must be the one described.
        browser, _, page = self.log_in(port, seeded["reader"], seeded["password"])
        browser.close()
        warned = page.count('<details class="filtered">')
        shown = page.count('class="status"')
        if warned != len(WARNED) or shown != HOME_AUTHORS:
            raise CommandError(
                f"the home page shows {shown} statuses, {warned} filtered: not"
                f" {HOME_AUTHORS} and {len(WARNED)}"
            )
        return super().measure_pages(r, process, port, seeded, options)
