"""``judgebox verl-config`` without verl: what it refuses (exit 2, one line on stderr, nothing printed) and how it
writes a value that neither a shell nor Hydra may split. What verl makes of the lines it prints is proved by
verl's own code in tests/trainers/test_verl_config.py."""

from __future__ import annotations

import shlex

import pytest
from hydra.core.override_parser.overrides_parser import OverridesParser

from judgebox.tools import cli


@pytest.mark.parametrize("args, message", [
    (["--profile", "judgebox2"], "--profile 'judgebox2': expected one of judgebox, verl, prime,"),
    (["--url", "ftp://x"], "--url 'ftp://x': expected 'local' or None, judgebox://host:port"),
    (["--url", "judgebox://a:1,http://b:2"], "several servers must be of one kind"),
    (["--verl", "1.0"], "--verl '1.0': judgebox knows the config layouts of verl 0.4 to 0.9"),
    (["--verl", "0.3.2"], "--verl '0.3.2': judgebox knows"),
    (["--interface", "dapo"], "--interface 'dapo': expected one of naive, batch, prime, reward-loop"),
    (["--verl", "0.6.1", "--interface", "reward-loop"], "judgebox's reward loop config is for verl 0.8 and later"),
])
def test_a_value_it_cannot_write_is_exit_2_with_one_line(capsys, args, message):
    assert cli.main(["verl-config", *args]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert len(err.strip().splitlines()) == 1 and message in err, err


def test_several_servers_are_one_argument_and_one_value(capsys):
    """Unquoted, Hydra would read the comma of several servers as a sweep over them."""
    url = "judgebox://a:8080,judgebox://b:8080"
    assert cli.main(["verl-config", "--url", url]) == 0
    (line,) = [line for line in capsys.readouterr().out.splitlines() if "sandbox_fusion_url" in line]
    (argument,) = shlex.split(line.removesuffix(" \\"))
    assert OverridesParser.create().parse_override(argument).value() == url


def test_older_verl_gets_the_top_level_keys_and_the_file(capsys):
    import judgebox.verl

    assert cli.main(["verl-config", "--verl", "0.5.0", "--interface", "batch"]) == 0
    lines = [line.removesuffix(" \\") for line in capsys.readouterr().out.splitlines()]
    assert f"custom_reward_function.path={judgebox.verl.__file__}" in lines
    assert "reward_model.reward_manager=batch" in lines
    assert not any(line.startswith("+ray_kwargs") for line in lines)  # 0.4 and 0.5 pass no runtime_env to Ray
