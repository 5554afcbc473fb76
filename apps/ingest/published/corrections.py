"""The known defects of the io500.org SQL files and their repairs, each keyed by file and statement (0-based
index in the file) and shown in the import's report.

A short table on purpose: any other statement that fails stops the import.
"""

from dataclasses import dataclass

#: What a correction lets the replay accept that it otherwise refuses, as MariaDB does.
EMPTY_STRING_AS_ZERO = "empty-string-as-zero"
SERIAL_AUTO_INCREMENT = "serial-auto-increment"


@dataclass(frozen=True)
class Correction:
    file: str
    statement: int
    reason: str
    find: str = ""  # text of the file replaced before it is cut into statements (exactly one occurrence)
    replace: str = ""
    accepts: str = ""  # EMPTY_STRING_AS_ZERO or SERIAL_AUTO_INCREMENT
    skip: bool = False  # the statement is not applied


EMPTY_AS_ZERO_REASON = "empty strings cast to integers: the site's MySQL ran with an empty sql_mode, which stores 0"
SERIAL_REASON = "`SERIAL NOT NULL AUTO_INCREMENT`, which MariaDB refuses: SERIAL is already an auto-increment key"
LISTING_IDS_REASON = (
    "renumbers listings to ids the files' own replay has given to other listings (a duplicate primary key in "
    "MariaDB too): the live site's listings were numbered differently. No list depends on it: "
    "2021-05-01-fix-list-id.sql sets the list tables' listing_id"
)

CORRECTIONS: list[Correction] = [
    *(
        Correction("2021-02-10-update-fied-type.sql", index, EMPTY_AS_ZERO_REASON, accepts=EMPTY_STRING_AS_ZERO)
        for index in range(4)
    ),
    *(
        Correction("2021-06-26-insert-scc19-list.sql", index, EMPTY_AS_ZERO_REASON, accepts=EMPTY_STRING_AS_ZERO)
        for index in (4, 5, 6, 8, 9, 10, 11, 12, 13, 14, 15, 17)
    ),
    Correction("2021-06-26-insert-scc19-list.sql", 18, SERIAL_REASON, accepts=SERIAL_AUTO_INCREMENT),
    *(
        Correction("2021-07-1-insert-isc21-list.sql", index, SERIAL_REASON, accepts=SERIAL_AUTO_INCREMENT)
        for index in (19, 20, 21, 22)
    ),
    *(Correction("2021-07-1-fix-isc21-list.sql", index, LISTING_IDS_REASON, skip=True) for index in range(4)),
    Correction(
        "2021-11-26-update-ocean-stor-name.sql",
        0,
        "a curly quote ends the string literal 'Olympus Lab’, leaving it open over the rest of the file",
        find="'Olympus Lab’,",
        replace="'Olympus Lab',",
    ),
]
