"""HTML pages. Views fetch with one queryset method and render; the rules live in apps.results."""

from django.shortcuts import render

from apps.results.models import Run, StorageSystem


def home(request):
    context = {
        "run_count": Run.objects.count(),
        "system_count": StorageSystem.objects.count(),
        "top_runs": list(Run.objects.io500_list()[:10]),
    }
    return render(request, "leaderboard/home.html", context)
