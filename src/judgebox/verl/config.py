"""The Hydra overrides that make judgebox a verl trainer's code reward (what ``judgebox verl-config`` prints).

verl's trainer config has had two layouts, read from verl's own code:

- **verl 0.8 and later** (0.9.1's wheel): the keys are under ``reward.``; ``custom_reward_function.path`` is
  loaded by ``load_extern_object``, which takes ``pkg://judgebox.verl``; the trainer scores through its
  reward loop, whose registry (``verl.experimental.reward_loop.reward_manager``) has ``naive``, ``dapo``,
  ``gdpo``, ``rate_limited`` and ``remote``, and no ``batch`` or ``prime``: those two interfaces are
  expressed through the loop's ``naive`` manager, which awaits a coroutine function and takes a float.
- **verl 0.4 to 0.7** (0.6.1's wheel; 0.4.1, 0.5.0 and 0.7.0 read from their source): ``custom_reward_function.*``
  at the top, a file path (0.4 to 0.6 load it with ``spec_from_file_location``), and the manager in
  ``reward_model.reward_manager``, looked up in ``verl.workers.reward_manager``'s registry (``naive``,
  ``batch``, ``prime``, ``dapo``). From 0.6 on ``ray_kwargs.ray_init`` reaches ``ray.init``, so the mask's
  setup hook is a config line there.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from judgebox.backends.registry import Address, check_address
from judgebox.errors import InvalidInput, UnknownAddress, UnknownPreset
from judgebox.verl.reward import PROFILES

# what Hydra's grammar and a shell both take as a plain value; anything else (the comma of several
# servers is a sweep to Hydra) is quoted for both
_PLAIN = re.compile(r"[\w./:@+-]+")
INTERFACES = ("naive", "batch", "prime", "reward-loop")
MASK_HOOK = ("# samples the judge failed on (infra_error) kept out of the update: judgebox.verl.mask",
             "+ray_kwargs.ray_init.runtime_env.worker_process_setup_hook=judgebox.verl.mask.install")


@dataclass(frozen=True)
class Layout:
    """Where one range of verl versions keeps the reward's keys, and how each interface is said there."""

    versions: str
    prefix: str  # of custom_reward_function
    manager_key: str
    functions: dict[str, tuple[str, str, str]]  # interface: (reward manager, judgebox.verl function, why)
    mask: tuple[str, ...] = MASK_HOOK  # how judgebox.verl.mask gets into the trainer's processes


CURRENT = Layout("0.8 and later", "reward.custom_reward_function", "reward.reward_manager.name", {
    "naive": ("naive", "default_compute_score", "the reward loop's naive manager, a dict per sample"),
    "reward-loop": ("naive", "async_compute_score", "the reward loop's naive manager awaits each sample's call; "
                    "the calls that arrive together are judged as one batch"),
    "batch": ("naive", "async_compute_score", "this trainer has no batch manager: its reward loop awaits "
              "each sample's call, and async_compute_score judges the calls that arrive together as one batch"),
    "prime": ("naive", "prime_compute_score", "this trainer has no prime manager: its reward loop's naive "
              "manager takes prime_compute_score's float per sample (NaN where the judge failed)")})
LEGACY = Layout("0.6 and 0.7", "custom_reward_function", "reward_model.reward_manager", {
    "naive": ("naive", "default_compute_score", "the naive manager, a dict per sample"),
    "batch": ("batch", "compute_score_batch", "the batch manager, one call per step"),
    "prime": ("prime", "prime_compute_score", "the prime manager, a float per sample in its process pool")})
# verl 0.4 and 0.5 call ray.init with a runtime_env of their own, not the config's
OLDEST = Layout("0.4 and 0.5", LEGACY.prefix, LEGACY.manager_key, LEGACY.functions, (
    "# samples the judge failed on kept out of the update: call judgebox.verl.mask.install() in the process "
    "that runs the trainer",))


def layout(verl: str) -> Layout:
    """The layout of verl ``verl`` (``0.9``, ``0.6.1``...): only versions whose code was read are known."""
    found = re.fullmatch(r"0\.(\d+)(\.\d+.*)?", verl)
    minor = int(found.group(1)) if found else -1
    if 8 <= minor <= 9:
        return CURRENT
    if 6 <= minor <= 7:
        return LEGACY
    if 4 <= minor <= 5:
        return OLDEST
    raise InvalidInput(f"--verl {verl!r}: judgebox knows the config layouts of verl 0.4 to 0.9")


def overrides(verl: str = "0.9", interface: str = "naive", profile: str = "judgebox",
              url: Address = None) -> list[str]:
    """The config lines: ``#`` comments, then the overrides (the mask's hook last, under its own comment)."""
    import judgebox.verl

    if interface not in INTERFACES:
        raise InvalidInput(f"--interface {interface!r}: expected one of {', '.join(INTERFACES)}")
    if profile not in PROFILES:
        raise UnknownPreset(f"--profile {profile!r}: expected one of {', '.join(PROFILES)}")
    try:
        check_address(url)  # a URL no backend takes is refused here, not at the trainer's first step
    except UnknownAddress as exc:
        raise UnknownAddress(f"--url {exc}") from exc
    where = layout(verl)
    if interface not in where.functions:
        raise InvalidInput(f"--interface {interface}: judgebox's reward loop config is for verl 0.8 and later "
                           f"(--verl 0.9); verl {verl} takes naive, batch or prime")
    manager, function, why = where.functions[interface]
    # verl 0.8 and later import the package; a file path is what every older verl takes
    path = "pkg://judgebox.verl" if where is CURRENT else judgebox.verl.__file__
    lines = [_override(f"{where.prefix}.path", path), f"{where.prefix}.name={function}"]
    if manager != "naive":  # verl's default manager
        lines.append(f"{where.manager_key}={manager}")
    if profile != "judgebox":
        lines.append(f"+{where.prefix}.reward_kwargs.profile={profile}")
    if url:
        lines.append(_override(f"+{where.prefix}.reward_kwargs.sandbox_fusion_url", str(url)))
    return [f"# verl {where.versions}: {why}", *lines, *where.mask]


def _override(key: str, value: str) -> str:
    if _PLAIN.fullmatch(value):
        return f"{key}={value}"
    if set(value) & set("'\"$`\\"):
        raise InvalidInput(f"{key}: {value!r} has a character no quoting passes through both a shell and Hydra")
    return f"\"{key}='{value}'\""
