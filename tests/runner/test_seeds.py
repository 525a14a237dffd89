import pytest
from hypothesis import given
from hypothesis import strategies as st

from playbench.core.rng import MAX_SEED
from playbench.runner.seeds import MAX_EPISODES, SeedError, parse_seeds


def test_a_range_includes_both_ends():
    assert parse_seeds("0-4") == [0, 1, 2, 3, 4]


def test_a_list_keeps_its_order():
    assert parse_seeds("9,1,5") == [9, 1, 5]


def test_ranges_and_seeds_mix_and_spaces_are_allowed():
    assert parse_seeds("3, 10-12 ,0") == [3, 10, 11, 12, 0]


def test_the_largest_seed_is_taken():
    assert parse_seeds(str(MAX_SEED)) == [MAX_SEED]


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("", "empty entry"),
        ("1,,2", "empty entry"),
        ("5-2", "runs backwards"),
        ("a-3", "is not a seed or a range"),
        ("-3", "is not a seed or a range"),
        ("1.5", "is not a seed or a range"),
        ("１", "is not a seed or a range"),
        ("1-2-3", "is not a seed or a range"),
        ("1,1", "lists seed 1 twice"),
        ("0-3,2", "lists seed 2 twice"),
        (str(MAX_SEED + 1), "above the largest seed"),
        (f"0-{MAX_EPISODES}", f"more than {MAX_EPISODES} episodes"),
    ],
)
def test_a_bad_seed_list_says_what_is_wrong(text, words):
    with pytest.raises(SeedError, match=words):
        parse_seeds(text)


@given(st.lists(st.integers(0, MAX_SEED), min_size=1, max_size=20, unique=True))
def test_a_written_list_reads_back(seeds):
    assert parse_seeds(",".join(map(str, seeds))) == seeds


@given(st.integers(0, 10**6), st.integers(0, 300))
def test_a_range_has_its_length(low, length):
    assert parse_seeds(f"{low}-{low + length}") == list(range(low, low + length + 1))
