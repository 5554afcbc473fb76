"""Give every DNE scaling series stored so far its parameter study (``Study.scaling_series``).

From 0021 on, ingest writes a series' study points with its points, in the same transaction; the
series stored before that get theirs here, from their points, through the same mapping ingest uses
(``apps.results.judgements.scaling.study``, plain Python that reads the historical rows' attributes). Reversing
removes the studies that belong to a series; IOR studies are untouched either way.
"""

from django.db import migrations

from apps.results.judgements.scaling.study import DNE_AXES, DNE_UNIT, dne_study_name, study_point_fields


def create_dne_studies(apps, schema_editor):
    ScalingSeries = apps.get_model("results", "ScalingSeries")
    Study = apps.get_model("results", "Study")
    StudyPoint = apps.get_model("results", "StudyPoint")
    for series in ScalingSeries.objects.filter(study__isnull=True).order_by("pk"):
        study = Study.objects.create(
            name=dne_study_name(series.name, series.pk, lambda name: Study.objects.filter(name=name).exists()),
            scaling_series=series, unit=DNE_UNIT, axis_order=list(DNE_AXES), system_id=series.system_id,
            lustre_build_id=series.lustre_build_id, upload_id=series.upload_id, notes=series.notes)
        points = series.points.order_by("pk")
        StudyPoint.objects.bulk_create(StudyPoint(study=study, **fields) for fields in study_point_fields(points))


def delete_dne_studies(apps, schema_editor):
    apps.get_model("results", "Study").objects.filter(scaling_series__isnull=False).delete()


class Migration(migrations.Migration):
    dependencies = [("results", "0021_study_of_a_dne_series")]

    operations = [migrations.RunPython(create_dne_studies, delete_dne_studies)]
