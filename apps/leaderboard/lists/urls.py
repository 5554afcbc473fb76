from django.urls import path
from django.views.generic import RedirectView

from apps.leaderboard.lists import views

urlpatterns = [
    # The research lists' names since the split (their URLs before it, io500 and ten-node, stay the lists' own).
    path("lists/research/", RedirectView.as_view(url="/lists/io500/", query_string=True)),
    path("lists/ten-node-research/", RedirectView.as_view(url="/lists/ten-node/", query_string=True)),
    path("lists/<list:kind>/", views.live_list, name="list"),
    path("lists/<list:kind>/export.<fmt:fmt>", views.live_list_export, name="list-export"),
    path("editions/", views.edition_index, name="edition-index"),
    path("editions/<slug:name>/", views.edition_list, name="edition-detail"),
    path("editions/<slug:name>/awards/", views.edition_awards_page, name="edition-awards"),
    path("editions/<slug:name>/<list:kind>/", views.edition_list, name="edition-list"),
    path("editions/<slug:name>/<list:kind>/export.<fmt:fmt>", views.edition_export, name="edition-export"),
]
