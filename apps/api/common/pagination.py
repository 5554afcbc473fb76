"""The page-number pagination every collection shares (settings' DEFAULT_PAGINATION_CLASS)."""

from rest_framework import pagination


class PageNumberPagination(pagination.PageNumberPagination):
    """count / next / previous / results, with a client-chosen page_size up to a sane cap."""

    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 1000
