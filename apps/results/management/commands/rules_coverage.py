"""rules_coverage: does every IO500 submission-rule clause have a check, a reason, and a line in docs/rules.md?

Exits 1, listing the problems, when a clause is unmapped (as MLPerf Storage's tools/rules_coverage.py
does), so CI catches a clause added without its check. ``--write PATH`` regenerates the document.
"""

from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from apps.results.judgements.anomalies import RULES
from apps.results.judgements.submission_rules import CLAUSES, coverage_problems, render_rules_doc


class Command(BaseCommand):
    help = "Check that every submission-rule clause is checked, not checkable or out of scope, and documented."

    def add_arguments(self, parser):
        parser.add_argument(
            "--docs",
            type=Path,
            default=Path(settings.BASE_DIR) / "docs" / "rules.md",
            help="the rules document to check (default docs/rules.md)",
        )
        parser.add_argument("--write", type=Path, help="write the rules document here instead of checking one")

    def handle(self, *args, **options):
        rule_clauses = {name: rule.clause for name, rule in RULES.items()}
        if options["write"]:
            options["write"].write_text(render_rules_doc(CLAUSES), encoding="utf-8")
            self.stdout.write(f"wrote {options['write']}")
            options["docs"] = options["write"]
        docs = options["docs"]
        docs_text = docs.read_text(encoding="utf-8") if docs.exists() else ""
        problems = coverage_problems(CLAUSES, rule_clauses, docs_text)
        if problems:
            for problem in problems:
                self.stderr.write(problem)
            raise CommandError(f"{len(problems)} clause(s) not covered", returncode=1)
        checked = sum(clause.status == "checked" for clause in CLAUSES)
        self.stdout.write(
            f"{len(CLAUSES)} clauses covered: {checked} checked, {len(CLAUSES) - checked} not "
            f"checkable from files or out of scope"
        )
