"""``manage.py doctor``: checks the Redis, the settings, the stream server and the
fan-out workers this installation is configured with; exits 1 if any has a problem."""

from django.core.management.base import BaseCommand, CommandError

from socialsite import doctor
from socialsite.repository.server_checks import OK, PROBLEM


class Command(BaseCommand):
    help = (
        "Check that Redis keeps what it is given, that production settings are set, and "
        "that the stream server and fan-out workers are running. Exits 1 on a problem."
    )

    def handle(self, *args, **options):
        findings = doctor.run_checks()
        for finding in findings:
            line = f"{finding.state}: {finding.item}: {finding.sentence}"
            if finding.state == PROBLEM:
                self.stdout.write(self.style.ERROR(line))
            elif finding.state == OK:
                self.stdout.write(line)
            else:
                self.stdout.write(self.style.WARNING(line))
        problems = sum(1 for finding in findings if finding.state == PROBLEM)
        if problems:
            raise CommandError(f"{problems} problem(s) found.", returncode=1)
        self.stdout.write(self.style.SUCCESS("No problem found."))
