"""Custom lists: the saved equation, its ranked rows, and the error that points into the equation."""

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from apps.api.common.inputs import BoundedTextMixin
from apps.api.runs.serializers import ScoreSerializer
from apps.results.models import CustomList
from apps.results.models.list_kinds import LIST_KINDS


class CustomListSerializer(BoundedTextMixin, serializers.ModelSerializer):
    """A saved custom list: its equation ranks the members of `base_list`; `token` is its stable link."""

    name = serializers.CharField(required=False, allow_blank=True, max_length=200, default="")
    # No max_length of its own: the grammar refuses an over-long equation itself, with the position
    # (apps.results.judgements.equations); BoundedTextMixin's bound only stops a body the grammar should never
    # have to read.
    equation = serializers.CharField(trim_whitespace=False)
    base_list = serializers.ChoiceField(choices=list(LIST_KINDS), default="full")
    url = serializers.SerializerMethodField()

    class Meta:
        model = CustomList
        fields = ["token", "name", "equation", "base_list", "created_at", "url"]
        read_only_fields = ["token", "created_at"]

    @extend_schema_field(OpenApiTypes.URI)
    def get_url(self, custom) -> str:
        request = self.context.get("request")
        path = custom.get_absolute_url()
        return request.build_absolute_uri(path) if request else path


class CustomRowSerializer(serializers.Serializer):
    rank = serializers.IntegerField(allow_null=True)
    value = serializers.FloatField(allow_null=True)
    run = serializers.IntegerField(source="run.pk")
    system_name = serializers.CharField(source="run.system.name")
    institution = serializers.CharField(source="run.system.institution.name")
    score = ScoreSerializer(source="run")


class EquationErrorSerializer(serializers.Serializer):
    equation = serializers.CharField(help_text="what is wrong")
    position = serializers.IntegerField(help_text="0-based character offset of the fault")
