from django.urls import path

from apps.leaderboard.custom_lists import views

urlpatterns = [
    path("lists/custom/new/", views.custom_list_new, name="custom-list-new"),
    path("lists/custom/check/", views.equation_check, name="equation-check"),
    path("lists/custom/<slug:token>/", views.custom_list, name="custom-list"),
    path("lists/custom/<slug:token>/export.<fmt:fmt>", views.custom_list_export, name="custom-list-export"),
]
