"""The Chimestep state: flat, slotted, cheap to copy."""

from __future__ import annotations

from playbench.core import Rng

STATUSES = ("waiting", "stageIntro", "playing", "recovering", "stageClear", "done")
WAITING, STAGE_INTRO, PLAYING, RECOVERING, STAGE_CLEAR, DONE = range(len(STATUSES))
NO_DIRECTION = -1

#: a Hush is five consecutive ints in ``State.hush``: kind, tile, dormant ticks left,
#: ticks until its next step, ticks spent awake
HUSH_FIELDS = 5
H_KIND, H_TILE, H_DORMANT, H_CLOCK, H_AWAKE = range(HUSH_FIELDS)


class State:
    """One moment of a run. ``rules.step`` copies it and changes only the copy."""

    __slots__ = (
        "buffered",
        "chain",
        "charges",
        "cooldown",
        "free_leap",
        "hush",
        "lives",
        "phase_ticks",
        "position",
        "rings",
        "rng",
        "score",
        "shimmer",
        "spawn_clock",
        "spawn_index",
        "stage",
        "stage_damped",
        "stage_hops",
        "status",
        "target",
        "teeter",
        "teeter_dir",
        "tick",
        "tiles",
        "toll_cooldown",
    )

    status: int
    stage: int
    target: int
    tiles: bytearray
    position: int
    cooldown: int
    buffered: int
    teeter: int
    teeter_dir: int
    lives: int
    chain: int
    rings: int
    charges: int
    toll_cooldown: int
    shimmer: int
    phase_ticks: int
    hush: list[int]
    spawn_clock: int
    spawn_index: int
    stage_hops: int
    stage_damped: int
    score: int
    tick: int
    free_leap: bool
    rng: Rng

    def copy(self) -> State:
        other = State.__new__(State)
        other.status = self.status
        other.stage = self.stage
        other.target = self.target
        other.tiles = bytearray(self.tiles)
        other.position = self.position
        other.cooldown = self.cooldown
        other.buffered = self.buffered
        other.teeter = self.teeter
        other.teeter_dir = self.teeter_dir
        other.lives = self.lives
        other.chain = self.chain
        other.rings = self.rings
        other.charges = self.charges
        other.toll_cooldown = self.toll_cooldown
        other.shimmer = self.shimmer
        other.phase_ticks = self.phase_ticks
        other.hush = self.hush[:]
        other.spawn_clock = self.spawn_clock
        other.spawn_index = self.spawn_index
        other.stage_hops = self.stage_hops
        other.stage_damped = self.stage_damped
        other.score = self.score
        other.tick = self.tick
        other.free_leap = self.free_leap
        other.rng = Rng(self.rng.state)
        return other

    def remaining(self) -> int:
        """Tiles still below the stage's target level."""
        target = self.target
        return sum(1 for level in self.tiles if level < target)
