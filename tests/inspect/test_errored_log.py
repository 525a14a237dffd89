"""A log that measured nothing is no result: an Inspect run whose every sample errored
is refused by ``playbench verify``, ``import`` and ``report``, by name, with the error."""

from __future__ import annotations

from inspect_ai import eval as inspect_eval

from playbench.cli import main
from playbench.inspect.tasks import gem_swap

REFUSAL = "Input should be 'text' or 'json_object'"


def refused(messages, tools, choice, config):
    raise RuntimeError(REFUSAL)


def test_a_log_whose_samples_all_errored_is_refused_everywhere(tmp_path, capsys):
    [log] = inspect_eval(
        gem_swap(seeds="0-1", max_turns=2),
        model="mockllm/model",
        model_args={"custom_outputs": refused},
        log_dir=str(tmp_path / "logs"),
        display="none",
        fail_on_error=False,
    )
    assert all(sample.error is not None for sample in log.samples)
    path = log.location
    assert main(["verify", path]) == 2
    err = capsys.readouterr().err
    assert f"{path} holds no scored episode, the eval's status is {log.status}" in err
    assert "sample gem-swap-0: it errored (RuntimeError(" + repr(REFUSAL) in err
    assert "sample gem-swap-1: it errored (RuntimeError(" + repr(REFUSAL) in err
    out = tmp_path / "imported"
    assert main(["import", path, "--out", str(out)]) == 2
    assert "holds no scored episode" in capsys.readouterr().err
    assert not out.exists()
    assert main(["report", path, "--out", str(tmp_path / "report")]) == 2
    assert "holds no scored episode" in capsys.readouterr().err
