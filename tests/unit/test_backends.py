"""The Backend contract and the one registry of backends: no sandbox, no server, no cluster needed."""

from __future__ import annotations

import inspect
import os

import pytest

import judgebox
from judgebox import InvalidInput
from judgebox.backend import Backend, BackendStats, RunCodeResult
from judgebox.backends import registry
from judgebox.backends.ray import RayJudge
from judgebox.backends.sandboxfusion import RunCodeServer
from judgebox.backends.server import ServerJudge
from judgebox.errors import UnknownAddress
from judgebox.judging.judge import Judge

CONTRACT = ("submission", "judge_submission", "judge_submission_async", "judge_many", "run_code", "stats",
            "isolation", "close", "judge", "judge_async")


@pytest.mark.parametrize("backend", [Judge, ServerJudge, RayJudge])
def test_every_backend_keeps_the_whole_contract(backend):
    assert issubclass(backend, Backend)
    for name in CONTRACT:
        own = getattr(backend, name)
        assert own is not getattr(Backend, name) or name in ("judge", "judge_async"), f"{backend.__name__}.{name}"
        assert inspect.iscoroutinefunction(own) == name.endswith("_async"), name


def test_the_registry_names_every_backend_once():
    made = {scheme: registry._backend(scheme) for scheme in registry.BACKENDS}
    assert made == {"local": Judge, "judgebox": ServerJudge, "ray": RayJudge}


def test_judgebox_addresses_are_server_backends_balanced_over_every_endpoint():
    for address, expected in [
        ("judgebox://127.0.0.1:9001,127.0.0.2:9002", ["http://127.0.0.1:9001", "http://127.0.0.2:9002"]),
        ("judgebox+https://127.0.0.1:9001/prefix", ["https://127.0.0.1:9001/prefix"]),
        (["http://127.0.0.1:9001", "http://127.0.0.1:9002"], ["http://127.0.0.1:9001", "http://127.0.0.1:9002"]),
        ("http://127.0.0.1:9001", ["http://127.0.0.1:9001"]),
    ]:
        with judgebox.connect(address) as backend:
            assert isinstance(backend, ServerJudge)
            assert [e["url"] for e in backend.client.endpoints()] == expected, address
            assert isinstance(backend.stats(), BackendStats)


@pytest.mark.parametrize("address, message", [
    ("ftp://127.0.0.1:21", "expected 'local' or None"),
    ("judge-1:8080", "expected 'local' or None"),
    ("ray://10.0.0.1:6379,10.0.0.2:6379", "one Ray cluster at a time"),
    ("judgebox://127.0.0.1:1,http://127.0.0.1:2", "one kind"),
    (42, "an address is a URL"),
])
def test_an_address_no_backend_answers_to_is_refused(address, message):
    with pytest.raises(UnknownAddress, match=message):
        judgebox.connect(address)
    assert issubclass(UnknownAddress, judgebox.InvalidInput) and issubclass(UnknownAddress, ValueError)


def test_a_backend_given_as_such_is_used_as_it_is():
    with judgebox.connect("judgebox://127.0.0.1:9001") as backend:
        assert registry.shared(backend) is backend
    foreign = RunCodeServer.at("http://127.0.0.1:9001/run_code")
    assert registry.shared(foreign) is foreign and foreign.path == "/run_code"
    foreign.close()


def test_a_closed_server_backend_judges_nothing_more():
    backend = judgebox.connect("judgebox://127.0.0.1:9001")
    backend.close()
    with pytest.raises(judgebox.errors.JudgeClosed):
        backend.judge("print(1)", [judgebox.Case.stdio("", "1\n")])
    with pytest.raises(judgebox.errors.JudgeClosed):
        backend.run_code([{"code": "print(1)", "language": "python"}])


def test_a_run_code_answer_unpacks_as_verl_reads_it():
    response, error = RunCodeResult(None, "API Call Failed: x")
    assert response is None and error == "API Call Failed: x"


def test_the_local_address_is_the_process_wide_judge_whichever_it_is_now(monkeypatch):
    """verl's embedded paths, rewards and TRL reach the judge judgebox.judge() uses through the registry: it
    must not keep a copy of its own, or a judge put in its place (one with testlib, say) is never reached."""

    import judgebox.judging.judge as judge_module

    first, second = object.__new__(Judge), object.__new__(Judge)  # never started: nothing runs
    monkeypatch.setattr(judge_module, "_default_pid", os.getpid())
    monkeypatch.setattr(judge_module, "_default", first)
    assert registry.shared() is first and registry.shared("local") is first
    monkeypatch.setattr(judge_module, "_default", second)
    assert registry.shared() is second and registry.shared("local") is second


def test_an_unknown_backend_is_refused():
    with pytest.raises(InvalidInput, match="expected 'local' or None"):
        judgebox.connect("spark://127.0.0.1:7077")
    with pytest.raises(InvalidInput, match="one Ray cluster at a time"):
        judgebox.connect("ray://10.0.0.1:6379,10.0.0.2:6379")


@pytest.mark.parametrize("options", [{"slots": 0}, {"slots": True}, {"attempts": 0}, {"attempts": 1.5}])
def test_bad_ray_options_are_refused_before_joining_a_cluster(options):
    with pytest.raises(InvalidInput, match="positive whole number"):
        judgebox.connect("ray://", **options)


# Addresses found to name a host nobody gave (review of the registry): endpoint_urls strips a URL's trailing '/',
# so "judgebox://" became "judgebox:", which the scheme rule read as the host "judgebox", and "ray://" in a list
# became the host "ray" on the first URL's scheme. Broke (fixed): each made a ServerJudge that would send the
# programs and the problems' tests to whatever host answers to that name.
@pytest.mark.parametrize("address", ["judgebox://", "judgebox://127.0.0.1:1,ray://",
                                     ["judgebox://127.0.0.1:1", "ray://"], "http://127.0.0.1:1,http://",
                                     "http://[::1", "http://127.0.0.1:port"])
def test_an_address_that_names_no_server_is_refused(address):
    """(``http://[::1`` raised urllib's ValueError, outside judgebox's errors.)"""
    with pytest.raises(UnknownAddress):
        registry.check_address(address)
    with pytest.raises(UnknownAddress):
        judgebox.connect(address, timeout=1)


@pytest.mark.parametrize("address", ["", "LOCAL", "local ", "local://", "ray", "file:///etc/passwd", b"local", 123,
                                     [], "judgebox://127.0.0.1:1,ray://x"])
def test_no_bad_address_falls_back_to_a_backend(address):
    with pytest.raises(UnknownAddress):
        registry.check_address(address)


@pytest.mark.parametrize("timeout", [-1, 0, float("inf"), "x", True])
def test_a_server_backend_refuses_a_timeout_no_call_can_meet(timeout):
    """Broke (fixed): timeout=-1 or 0 was taken, and then every submission was SE ("the deadline of -1 s passed
    after 0 attempt(s)"): every sample of a training step masked, silently; "x" failed later, a TypeError."""
    with pytest.raises(InvalidInput, match="timeout"):
        judgebox.connect("judgebox://127.0.0.1:9", timeout=timeout)


@pytest.mark.parametrize("address, options", [(None, {"token": "x"}), ("judgebox://127.0.0.1:9", {"slots": 2}),
                                              ("ray://", {"timeout": 1})])
def test_an_option_a_backend_does_not_take_is_invalid_input(address, options):
    """Broke (fixed): Python's TypeError, outside judgebox's errors; now said before anything is made."""
    with pytest.raises(InvalidInput, match="unexpected keyword argument"):
        judgebox.connect(address, **options)
