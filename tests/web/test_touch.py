"""Every game played by touch alone on a phone (390x844, taps on the on-screen pad and the
board), the pads drawn from each game's declared controls."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from playbench.core import all_games
from playbench.core.controls import controls_of
from playbench.core.match import Match
from playbench.games.delvewick.levels import LEVELS
from tests.games.delvewick.test_levels import LEVEL_POINTS

#: the accessible names the pads must carry, move by move
PAD_NAMES = {
    "delvewick": ["up", "down", "left", "right", "wait"],
    "chimestep": ["start", "toll", "up-left", "up-right", "down-left", "down-right"],
    "cogcrawl": [
        "north",
        "south",
        "east",
        "west",
        "north-east",
        "north-west",
        "south-east",
        "south-west",
    ],
}
LETTER_NAMES = {"U": "up", "D": "down", "L": "left", "R": "right", "W": "wait"}
#: Cogcrawl seed 0: one step west stands on gold, and picking it up scores 7
COGCRAWL_SEED = 0
COGCRAWL_GOLD = 7


def tap_button(phone: Page, name: str) -> None:
    phone.locator("#pad").get_by_role("button", name=name, exact=True).tap()


def wait_moves(phone: Page, moves: int) -> None:
    expect(phone.get_by_test_id("board")).to_have_attribute("data-moves", str(moves))


def test_every_pad_carries_its_moves_by_name_and_presses_its_own_keys(phone: Page) -> None:
    for slug, names in PAD_NAMES.items():
        phone.goto(f"/play/{slug}?seed=3")
        wait_moves(phone, 0)
        pad = phone.locator("#pad")
        for name in names:
            button = pad.get_by_role("button", name=name, exact=True)
            expect(button).to_be_visible()
            box = button.bounding_box()
            assert box is not None and box["width"] >= 44 and box["height"] >= 44, (slug, name)
    # every button a game declares presses a key of its own table or opens one of its panels
    for game in all_games():
        controls = controls_of(game)
        for button in controls.pad:
            assert button.key in controls.keys or button.key in controls.panels, button


def test_delvewick_level_one_cleared_by_taps(phone: Page) -> None:
    solution = LEVELS[0].solution
    phone.goto("/play/delvewick?seed=7")
    wait_moves(phone, 0)
    for move, letter in enumerate(solution, start=1):
        tap_button(phone, LETTER_NAMES[letter])
        wait_moves(phone, move)
    expect(phone.get_by_test_id("score")).to_have_text(str(LEVEL_POINTS[0]))


def test_gem_swap_swap_made_by_tapping_two_gems(phone: Page) -> None:
    gained = Match.start("gem-swap", 7).command("swap D2 right").reward
    phone.goto("/play/gem-swap?seed=7")
    wait_moves(phone, 0)
    phone.locator('[data-cell="D2"]').tap()
    wait_moves(phone, 1)
    phone.locator('[data-cell="E2"]').tap()
    wait_moves(phone, 2)
    expect(phone.get_by_test_id("score")).to_have_text(str(gained))
    assert gained == 30


def test_chimestep_started_and_scored_by_taps_in_real_time(phone: Page) -> None:
    phone.goto("/play/chimestep?seed=7")
    wait_moves(phone, 0)
    tap_button(phone, "start")
    expect(phone.get_by_test_id("status")).to_have_text("playing", timeout=15_000)
    tap_button(phone, "down-right")
    # the hop lands on a fresh tile while the page ticks on its own: the score changes
    expect(phone.get_by_test_id("score")).not_to_have_text("0", timeout=15_000)
    expect(phone.locator("[data-chick]")).to_have_attribute("data-chick", "1,1")


def test_cogcrawl_gold_picked_up_and_food_eaten_from_the_pack_by_taps(phone: Page) -> None:
    phone.goto(f"/play/cogcrawl?seed={COGCRAWL_SEED}")
    wait_moves(phone, 0)
    tap_button(phone, "west")
    wait_moves(phone, 1)
    tap_button(phone, "pick up")
    wait_moves(phone, 2)
    expect(phone.get_by_test_id("score")).to_have_text(str(COGCRAWL_GOLD))
    # the pack panel lists the pack, letter by letter
    tap_button(phone, "pack")
    lines = phone.get_by_test_id("panel").get_by_test_id("panel-line")
    expect(lines).to_have_text(
        [
            "a - dagger (weapon, wielded)",
            "b - leather armour (armour, worn)",
            "c - food ration (food)",
            "d - food ration (food)",
        ]
    )
    tap_button(phone, "pack")
    expect(phone.get_by_test_id("panel")).to_be_hidden()
    # eat asks which letter: the pack's own lines are the choices
    tap_button(phone, "eat")
    phone.get_by_test_id("panel").get_by_role("button", name="eat c", exact=True).tap()
    wait_moves(phone, 3)
    expect(phone.get_by_test_id("panel")).to_be_hidden()
    expect(phone.locator("#messages")).to_contain_text("food ration")


def test_cogcrawl_and_gem_swap_pages_carry_a_legend(phone: Page) -> None:
    phone.goto("/play/cogcrawl?seed=3")
    wait_moves(phone, 0)
    legend = phone.locator("#legend .legend-item")
    expect(legend).to_have_count(14)
    expect(legend.first).to_have_text("you, the cog")
    expect(phone.locator("#legend")).to_contain_text("stairs down")
    expect(legend.locator("canvas")).to_have_count(14)
    phone.goto("/play/gem-swap?seed=3")
    wait_moves(phone, 0)
    specials = phone.locator("#legend .legend-item")
    expect(specials).to_have_count(4)
    expect(specials.locator("svg")).to_have_count(4)
    expect(specials.nth(3)).to_contain_text("color bomb")


def swipe(phone: Page, dx: int, dy: int) -> None:
    """A finger drawn across the board: touch pointer events, down then up ``dx, dy`` on."""
    phone.get_by_test_id("board").evaluate(
        """(board, [dx, dy]) => {
            const box = board.getBoundingClientRect();
            const [x, y] = [box.left + box.width / 2, box.top + box.height / 2];
            const at = (type, px, py) => board.dispatchEvent(new PointerEvent(type, {
                bubbles: true, pointerType: "touch", isPrimary: true, clientX: px, clientY: py,
            }));
            at("pointerdown", x, y);
            at("pointerup", x + dx, y + dy);
        }""",
        [dx, dy],
    )


def test_delvewick_moves_by_swipes_on_the_board(phone: Page) -> None:
    expected = Match.start("delvewick", 7)
    for command in ("down", "right"):
        expected.command(command)
    phone.goto("/play/delvewick?seed=7")
    wait_moves(phone, 0)
    swipe(phone, 0, 80)
    wait_moves(phone, 1)
    swipe(phone, 80, 5)
    wait_moves(phone, 2)
    # a short touch is no swipe: the next swipe is the third move, not the fourth
    swipe(phone, 6, 4)
    swipe(phone, -80, 0)
    wait_moves(phone, 3)
    expected.command("left")
    expect(phone.get_by_test_id("score")).to_have_text(str(expected.score))
