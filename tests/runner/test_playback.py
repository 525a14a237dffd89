from __future__ import annotations

from pathlib import Path

from playbench.core.match import Match
from playbench.runner.episode import EpisodeSpec, Task, play
from playbench.runner.playback import Playback
from playbench.runner.replay import Replay


def replay_of(slug: str, seed: int) -> Replay:
    episode = play(EpisodeSpec(slug, "random"), Task(seed))
    head, *lines, end = episode.replay
    return Replay(head, lines, end["end"])


def test_playback_walks_the_run_to_its_end():
    replay = replay_of("gem-swap", 3)
    playback = Playback.of(replay)
    assert playback.header() == "replay gem-swap seed 3 · random"
    screens = list(playback.screens())
    assert len(screens) == len(replay.lines) + 1
    assert playback.at_end and playback.match.score == replay.end["score"]
    assert playback.match.fingerprint() == replay.end["fingerprint"]
    assert screens[-1].splitlines()[-5].startswith(f"step {len(replay.lines)}/")
    assert "swap" in playback.message
    assert not playback.forward()


def test_back_rebuilds_the_step_before():
    replay = replay_of("delvewick", 1)
    playback = Playback.of(replay)
    for _ in range(5):
        playback.forward()
    after_four = Match.replay("delvewick", 1, None, replay.actions[:4]).fingerprint()
    assert playback.back() and playback.index == 4
    assert playback.match.fingerprint() == after_four
    for _ in range(4):
        assert playback.back()
    assert not playback.back() and playback.message == "start of the replay"


def test_the_status_line_is_drawn_under_the_footer(tmp_path: Path):
    playback = Playback.of(replay_of("chimestep", 2))
    playback.status = "10 actions/s"
    lines = playback.screen().splitlines()
    assert lines[-2:] == ["10 actions/s", "start of the replay"]
    assert lines[-3] == playback.footer()
    assert playback.screen_lines()[3][1]  # the board keeps the game's colours
