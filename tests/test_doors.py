"""No door reaches into a game: the scan of ``tests/doors.py`` finds no import of a
game's modules and no table keyed by a game's slug in ``playbench/`` outside ``games/``
and ``bots/``."""

from tests import doors


def test_the_scan_reads_the_doors():
    names = {str(path.relative_to(doors.ROOT)) for path in doors.door_files()}
    assert {"core/match.py", "runner/outcome.py", "agents/bot.py", "gym/env.py"} <= names
    assert not any(name.startswith(("games/", "bots/")) for name in names)


def test_no_door_imports_a_game():
    assert [str(place) for place in doors.imports()] == []


def test_no_door_keeps_a_table_keyed_by_slug():
    assert [str(place) for place in doors.slug_tables()] == []
