"""Rules editions (the submission rules in force between two dates), named by their slug."""

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from apps.api.common.inputs import BoundedTextMixin
from apps.results.models import RulesEdition


@extend_schema_field(
    {
        "type": "string",
        "maxLength": RulesEdition._meta.get_field("name").max_length,
        "description": RulesEdition._meta.get_field("name").help_text,
    }
)
class RulesEditionByName(serializers.SlugRelatedField):
    """A rules edition named by its slug; a name longer than any slug is unknown without a query."""

    def __init__(self, **kwargs):
        super().__init__(slug_field="name", queryset=RulesEdition.objects.all(), **kwargs)

    def to_internal_value(self, data):
        if isinstance(data, str) and len(data) > RulesEdition._meta.get_field("name").max_length:
            self.fail("does_not_exist", slug_name=self.slug_field, value=data[:60] + "…")
        return super().to_internal_value(data)


class RulesEditionSerializer(BoundedTextMixin, serializers.ModelSerializer):
    checklist = serializers.ListField(
        child=serializers.CharField(max_length=255),
        required=False,
        default=list,
        help_text="what a reviewer checks for a run under these rules",
    )

    class Meta:
        model = RulesEdition
        fields = ["name", "since", "until", "notes", "checklist"]

    def validate(self, attrs):
        since = attrs.get("since", getattr(self.instance, "since", None))
        until = attrs.get("until", getattr(self.instance, "until", None))
        if since and until and until <= since:
            raise serializers.ValidationError({"until": ["must be after since"]})
        return attrs
