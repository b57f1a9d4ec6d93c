"""``manage.py bench_media``: what pictures cost, measured in one run.

1. Accepting a photo: a --megapixels JPEG (4:3, made here by Pillow from noise over a
   gradient, which compresses as a photo does rather than as a flat colour) taken
   through attachments.prepare as an upload is (checked, decoded, stripped, encoded as
   the original and the preview), --jpeg-runs times; the best CPU time
   (time.process_time) is judged against JPEG_FLOOR_SECONDS.
2. The home page with images: bench_web's run (benchmarks/web.py, its gunicorn, login
   and load generator, its /healthz-against-home verdict on gunicorn CPU per request),
   whose seeding is followed here by IMAGE_STATUSES statuses with an image each by ten
   of the reader's authors, so that the reader's page of 30 shows those ten and twenty
   without. The files are stored under a throwaway MEDIA_ROOT, which gunicorn is given.
"""

import io
import os
import random
import tempfile
import time

from django.core.management.base import CommandError
from django.test import override_settings
from PIL import Image

from media import attachments, images
from socialsite.repository import keys, statuses, users

from .web import HOME_AUTHORS, MESSAGE, WebBenchmark

# The floor of accepting one 12-megapixel JPEG (docs/benchmarks.md).
JPEG_FLOOR_SECONDS = 1.0
JPEG_FLOOR_MEGAPIXELS = 12
IMAGE_STATUSES = 10  # of the home page's HOME_AUTHORS statuses
# The seeded statuses' pictures: the page's cost does not depend on their size.
SEED_PICTURE = (1200, 900)


def photo_jpeg(width, height, seed=1):
    """A JPEG of ``width`` x ``height`` that compresses as a photo does: a gradient with
    noise over it (quality 90, as a phone's camera)."""
    gradient = Image.linear_gradient("L").resize((width, height))
    noise = Image.effect_noise((width, height), 40)
    rng = random.Random(seed)
    channels = [Image.blend(gradient, noise, rng.uniform(0.3, 0.6)) for _ in range(3)]
    out = io.BytesIO()
    Image.merge("RGB", channels).save(out, "JPEG", quality=90)
    return out.getvalue()


def dimensions(megapixels):
    """(width, height) of a 4:3 picture of about ``megapixels`` (12 -> 4000 x 3000)."""
    width = round((megapixels * 1_000_000 * 4 / 3) ** 0.5)
    return width, round(width * 3 / 4)


class MediaBenchmark(WebBenchmark):
    """One run of ``manage.py bench_media`` with its options (bench_web's, and
    megapixels, jpeg_runs, skip_pages)."""

    PAGES = WebBenchmark.PAGES[:2]  # /healthz and the home page with its images
    HOME_VARIANT = f"home with {IMAGE_STATUSES} images"

    def run(self, options):
        self.measure_jpeg(options["megapixels"], options["jpeg_runs"])
        if options["skip_pages"]:
            return
        with tempfile.TemporaryDirectory(prefix="bench_media-") as media_root:
            # gunicorn (started by WebBenchmark.gunicorn from os.environ) and this
            # process's storage both use it.
            previous = os.environ.get("MEDIA_ROOT")
            os.environ["MEDIA_ROOT"] = media_root
            try:
                with override_settings(MEDIA_ROOT=media_root):
                    super().run(options)
            finally:
                if previous is None:
                    del os.environ["MEDIA_ROOT"]
                else:
                    os.environ["MEDIA_ROOT"] = previous

    def measure_jpeg(self, megapixels, runs):
        width, height = dimensions(megapixels)
        data = photo_jpeg(width, height)
        times = []
        for _ in range(runs):
            started = time.process_time()
            attachments.prepare(data)
            times.append(time.process_time() - started)
        best = min(times)
        self.stdout.write(
            f"Accepting a {width} x {height} JPEG ({len(data) / 1e6:.1f} MB;"
            " check, decode, strip, original and preview): best of"
            f" {runs} {best:.3f} s of CPU (each: {', '.join(f'{t:.3f}' for t in times)})"
        )
        self.measure_blurhash(data, runs, best)
        if megapixels >= JPEG_FLOOR_MEGAPIXELS:
            verdict = "meets" if best < JPEG_FLOOR_SECONDS else "MISSES"
            self.stdout.write(
                f"  -> {verdict} the floor ({JPEG_FLOOR_MEGAPIXELS} MP under"
                f" {JPEG_FLOOR_SECONDS:.0f} s of CPU)"
            )
        else:
            self.stdout.write(f"  (no verdict: the floor is for {JPEG_FLOOR_MEGAPIXELS} MP)")
        return best

    def measure_blurhash(self, data, runs, best):
        """What the blurhash adds to accepting the picture: its placeholders (average
        colour and blurhash, from one thumbnail) against the average colour alone, on
        the decoded picture, best of ``runs`` each; then accepting with it against
        without, as a ratio of ``best`` (attachments.prepare, which makes both)."""
        image = images.read_image(data)

        def best_of(work):
            times = []
            for _ in range(runs):
                started = time.process_time()
                work(image)
                times.append(time.process_time() - started)
            return min(times)

        both = best_of(images.placeholders)
        colour_only = best_of(images.placeholder_colour)
        added = max(0.0, both - colour_only)
        without = max(best - added, 1e-9)
        self.stdout.write(
            f"  of which the blurhash ({images.BLURHASH_SIDE}-pixel thumbnail): {added * 1000:.1f}"
            f" ms of CPU (placeholders {both * 1000:.1f} ms, the colour alone"
            f" {colour_only * 1000:.1f} ms); accepting with it / without: {best / without:.3f}"
        )

    def measure_pages(self, r, process, port, seeded, options):
        # The page measured must be the one described: ten of its statuses with an image.
        browser, _, page = self.log_in(port, seeded["reader"], seeded["password"])
        browser.close()
        shown = page.count('class="media-image')
        if shown != IMAGE_STATUSES:
            raise CommandError(f"the home page shows {shown} images, not {IMAGE_STATUSES}")
        return super().measure_pages(r, process, port, seeded, options)

    def seed(self, r, followers, pulled=0):
        seeded = super().seed(r, followers, pulled)
        prefix = seeded["reader"].removesuffix("reader")
        picture = attachments.prepare(photo_jpeg(*SEED_PICTURE))
        for i in range(IMAGE_STATUSES):
            uid = users.get_user_id(r, f"{prefix}author{i * HOME_AUTHORS // IMAGE_STATUSES}")

            def post(media, upload_ids, uid=uid, i=i):
                return statuses.post_status(
                    r, uid, f"{MESSAGE} (picture {i})", pending_uploads=upload_ids,
                    **{keys.STATUS_MEDIA_FIELD: media},
                )  # fmt: skip

            attachments.post_with_images(r, uid, [picture], [f"A seeded picture ({i})"], post)
        self.stdout.write(
            f"Then {IMAGE_STATUSES} of those authors posted a status with an image: the"
            f" reader's home page shows {IMAGE_STATUSES} of {HOME_AUTHORS} with one."
        )
        return seeded
