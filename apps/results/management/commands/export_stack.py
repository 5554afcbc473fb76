"""export_stack: one bottom-up campaign as the JSON object the stack-sample README describes."""

import json
import sys

from django.core.management.base import BaseCommand, CommandError

from apps.results.models import Stack
from apps.results.services.stack_export import stack_to_dict


class Command(BaseCommand):
    help = "Export a stack (bottom-up campaign): its layer rows, outliers, ceiling and file-system rows."

    def add_arguments(self, parser):
        parser.add_argument("name")
        parser.add_argument("--format", choices=["json"], default="json")
        parser.add_argument("-o", "--output", help="file to write (default: standard output)")

    def handle(self, *args, **options):
        stack = Stack.objects.filter(name=options["name"]).first()
        if stack is None:
            raise CommandError(f"no stack named {options['name']!r}")
        text = json.dumps(stack_to_dict(stack), indent=1) + "\n"
        if options["output"]:
            with open(options["output"], "w") as out:
                out.write(text)
        else:
            sys.stdout.write(text)
