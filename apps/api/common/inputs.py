"""Hostile input to the API: refused with a 400 naming the field, before any view acts on it.

What a field's own validators cannot catch, one mechanism catches for every endpoint:

- text that cannot be stored or answered: a NUL character (PostgreSQL text and jsonb cannot hold it)
  or a lone surrogate (not Unicode text: it cannot be encoded as UTF-8, so even an error message
  echoing it fails to render). The request parsers check every value of every body (JSON, form,
  multipart), the query-string guard (`apps.web.query_guard`, which defines the check) refuses a
  query string before any view runs, and `JSONTextField` checks the JSON a form field carries.
  DRF's CharField refuses both already; choice, slug and JSON fields do not, and echo the value
  in their error message;
- JSON nested deeper than `MAX_JSON_DEPTH`: Python's decoder recurses once per level, so a body of a
  few kilobytes of brackets ends in a RecursionError (a 500) without the limit;
- text fields without a length of their own get `settings.IOBOARD_API_MAX_TEXT_CHARS`
  (`BoundedTextMixin`), so no text reaches a column or a JSON document unbounded.
"""

import json

from django.conf import settings
from django.core.validators import MaxLengthValidator
from rest_framework import parsers, serializers
from rest_framework.exceptions import ParseError, ValidationError

from apps.web.query_guard import text_problem

#: Deeper than any document ioboard reads (the questionnaire is three levels), far below the decoder's recursion.
MAX_JSON_DEPTH = 32


def _problems(value, path: str, depth: int, found: dict[str, list[str]]) -> None:
    """Collect the problems of a value under its top-level field; the message names the place inside it."""

    def note(problem: str) -> None:
        field, _, inner = path.partition(".")
        found.setdefault(field or "non_field_errors", []).append(f"{path}: {problem}" if inner else problem)

    if depth > MAX_JSON_DEPTH:
        note(f"nested deeper than {MAX_JSON_DEPTH} levels")
        return
    if isinstance(value, str):
        problem = text_problem(value)
        if problem:
            note(problem)
        return
    if isinstance(value, dict):
        items = value.items()
    elif isinstance(value, list | tuple):
        items = enumerate(value)
    else:
        return
    for key, item in items:
        key_text = str(key)
        problem = text_problem(key_text)
        if problem:
            note(f"a key {problem}")
            continue
        _problems(item, f"{path}.{key_text}" if path else key_text, depth + 1, found)


def refuse_hostile_values(value) -> None:
    """Raise a ValidationError naming each field (dotted path) whose text cannot be stored or nests too deep."""
    found: dict[str, list[str]] = {}
    _problems(value, "", 0, found)
    if found:
        raise ValidationError(found)


def refuse_hostile_field_value(value, field: str) -> None:
    """The same for one field's value (a JSON document): a field error naming the place inside it."""
    found: dict[str, list[str]] = {}
    _problems(value, field, 0, found)
    if found:
        raise ValidationError(found[field])


def refuse_hostile_multivalue(data) -> None:
    """Every value of a QueryDict (a query string, a form), errors named by the parameter."""
    found: dict[str, list[str]] = {}
    for key in data:
        problem = text_problem(key)
        if problem:
            found.setdefault("non_field_errors", []).append(f"a parameter name {problem}")
            continue
        for value in data.getlist(key):
            _problems(value, key, 1, found)
    if found:
        raise ValidationError(found)


def load_json_text(text: str, field: str):
    """json.loads of a field's text with the depth bound and the text check; a field error otherwise."""
    try:
        value = json.loads(text)
    except RecursionError as error:
        raise ValidationError([f"{field}: nested deeper than {MAX_JSON_DEPTH} levels"]) from error
    except (TypeError, ValueError) as error:
        raise ValidationError([f"{field}: not valid JSON ({error})"]) from error
    refuse_hostile_field_value(value, field)
    return value


class JSONParser(parsers.JSONParser):
    """DRF's JSON body parser, with the depth bound and the text check (a 400 naming the field)."""

    def parse(self, stream, media_type=None, parser_context=None):
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError as error:
            raise ParseError(f"JSON parse error - nested deeper than {MAX_JSON_DEPTH} levels") from error
        refuse_hostile_values(data)
        return data


class FormParser(parsers.FormParser):
    def parse(self, stream, media_type=None, parser_context=None):
        data = super().parse(stream, media_type, parser_context)
        refuse_hostile_multivalue(data)
        return data


class MultiPartParser(parsers.MultiPartParser):
    def parse(self, stream, media_type=None, parser_context=None):
        parsed = super().parse(stream, media_type, parser_context)
        refuse_hostile_multivalue(parsed.data)
        return parsed


class JSONTextField(serializers.JSONField):
    """A JSON document sent as the text of a form field, decoded with the same bounds as a JSON body."""

    def to_internal_value(self, data):
        if self.binary or getattr(data, "is_json_string", False):
            if isinstance(data, bytes):
                data = data.decode()
            return load_json_text(data, self.field_name)
        refuse_hostile_field_value(data, self.field_name)
        return super().to_internal_value(data)


class BoundedTextMixin:
    """A serializer whose text fields without a max_length of their own get IOBOARD_API_MAX_TEXT_CHARS."""

    def get_fields(self):
        fields = super().get_fields()
        for field in fields.values():
            if isinstance(field, serializers.CharField) and field.max_length is None and not field.read_only:
                field.max_length = settings.IOBOARD_API_MAX_TEXT_CHARS
                message = field.error_messages["max_length"].format(max_length=field.max_length)
                field.validators.append(MaxLengthValidator(field.max_length, message=message))
        return fields
