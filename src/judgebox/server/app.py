"""The HTTP service: SandboxFusion's /run_code, /run_jupyter and dataset API, a native /judge and /judge/batch,
health and metrics.

    app = create_app(ServerSettings(slots=4))   # an ASGI app; `judgebox serve` runs it with uvicorn

This is the only package that imports the web framework.
"""

from __future__ import annotations

import asyncio
import contextvars
import dataclasses
import json
import logging
import os
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, cast

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, PlainTextResponse, Response, StreamingResponse
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from pydantic import BaseModel

from judgebox import callers, datasets, openrlhf
from judgebox.client import KEEPALIVE, KEEPALIVE_HEADER
from judgebox.datasets import online_judge
from judgebox.datasets.rows import Refused
from judgebox.errors import JudgeboxError
from judgebox.judging.cases import MAX_RECORD_BYTES
from judgebox.judging.judge import Judge
from judgebox.judging.pool import Group, Tenant
from judgebox.judging.run_code import DEFAULT_MEMORY_MB, OUTPUT_BYTES, RanCode, is_known_language
from judgebox.judging.run_code import queue_budget as run_code_budget
from judgebox.judging.selftest import language_report
from judgebox.sandbox.config import SandboxConfig
from judgebox.server.admission import Admission, ClientGone, Overloaded
from judgebox.server.metrics import Metrics
from judgebox.server.middleware import BodySizeLimit, RequestFrame, request_id
from judgebox.types import Limits, Submission
from judgebox.wire import convert, schemas
from judgebox.wire import datasets as wire_datasets
from judgebox.wire.schemas import BatchLine, BatchRequest, JudgeRequest, JudgeResponse, RunCodeRequest, RunCodeResponse

log = logging.getLogger("judgebox.server")
OPEN_PATHS = {"/v1/ping", "/health"}  # reachable without the token
# The output one /judge answer (or batch line) returns, its cases' stdout and stderr together: an eighth of the
# bound a client reads an answer within, as JSON may write a control byte in six.
ANSWER_OUTPUT_BYTES = MAX_RECORD_BYTES // 8


@dataclass(frozen=True)
class ServerSettings:
    slots: int | None = None  # sandbox slots; default one per core
    token: str | None = None  # bearer token required on every endpoint but OPEN_PATHS
    max_body_bytes: int = MAX_RECORD_BYTES  # a request is at most one record, as every reader bounds it
    max_waiting: int = 4096  # requests in flight before 504s
    max_wait: float = 30.0  # seconds a request may wait for its first case to start on a slot
    default_memory_mb: int = DEFAULT_MEMORY_MB  # for /run_code's memory_limit_MB = -1
    # One caller for every request (judgebox.callers): a single-tenant deployment shares its caches between
    # requests that declare no caller. Off, each request is the caller it declares, or a caller of its own.
    share_caches: bool = False
    output_bytes: int = OUTPUT_BYTES  # a /run_code run's output cap
    sandbox: SandboxConfig = field(default_factory=SandboxConfig)


def create_app(settings: ServerSettings | None = None, judge: Judge | None = None) -> FastAPI:
    settings = settings or ServerSettings()
    state: dict[str, object] = {}

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        owned = judge is None
        # Work the handlers (and Judge's async API) hand to the default executor keeps the request's
        # context, so the jobs it queues join the request's group in the worker pool.
        asyncio.get_running_loop().set_default_executor(_ContextExecutor())
        state["judge"] = judge or Judge(settings.sandbox, settings.slots)
        # Every language's self-test runs in the background: the server answers at once, and /health
        # says "pending" for the languages until their tests are done.
        state["languages"] = None
        checking = asyncio.ensure_future(_check_languages(state))
        try:
            yield
        finally:
            checking.cancel()
            if owned:
                state["judge"].close()  # type: ignore[attr-defined]

    app = FastAPI(title="judgebox", version="0.1.0", lifespan=lifespan,
                  description="A SandboxFusion-compatible code execution service with a native batch judge API.")
    metrics = Metrics()
    metrics.watch_dedupe(lambda: state.get("judge"))
    app.add_middleware(BodySizeLimit, max_bytes=settings.max_body_bytes)
    app.add_middleware(_StampArrival)
    routes: set[str] = set()  # the app's paths; any other path is counted as "other" (bounded label values)

    def count(path: str, status: int) -> None:
        if not routes:
            routes.update(r.path for r in app.routes)  # type: ignore[attr-defined]
        metrics.requests.labels(path if path in routes else "other", str(status)).inc()

    app.add_middleware(RequestFrame, token=settings.token, open_paths=OPEN_PATHS, count=count)
    pod = os.environ.get("MY_POD_NAME")

    def the_judge() -> Judge:
        return state["judge"]  # type: ignore[return-value]

    def admission() -> Admission:
        if "admission" not in state:  # made on the server's event loop
            state["admission"] = Admission(the_judge().cancel, settings.max_waiting, settings.max_wait)
            metrics.slots.set(the_judge().slots)
        return state["admission"]  # type: ignore[return-value]

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        errors = [{"loc": e.get("loc"), "msg": e.get("msg"), "type": e.get("type")} for e in exc.errors()]
        return JSONResponse({"detail": errors}, status_code=422)

    @app.exception_handler(RecursionError)
    async def too_deep(request: Request, exc: RecursionError) -> JSONResponse:
        return JSONResponse({"detail": "the JSON body is nested too deeply"}, status_code=422)

    @app.exception_handler(UnicodeEncodeError)
    async def not_text(request: Request, exc: UnicodeEncodeError) -> JSONResponse:
        return JSONResponse({"detail": f"the request holds text that is not valid Unicode: {exc.reason}"},
                            status_code=422)

    @app.exception_handler(JudgeboxError)
    async def bad_input(request: Request, exc: JudgeboxError) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, status_code=422)

    @app.exception_handler(Overloaded)
    async def overloaded(request: Request, exc: Overloaded) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, status_code=504, headers={"Retry-After": "1"})

    @app.exception_handler(ClientGone)
    async def client_gone(request: Request, exc: ClientGone) -> Response:
        return Response(status_code=499)  # nobody reads it; logged and counted as nginx does

    @app.exception_handler(Exception)
    async def failed(request: Request, exc: Exception) -> JSONResponse:
        log.exception("unhandled error [%s]", request_id.get())
        return JSONResponse({"detail": f"internal error; request id {request_id.get()}"}, status_code=500)

    @app.get("/v1/ping")
    async def ping() -> str:
        return "pong"

    @app.get("/health")
    async def health() -> dict:
        judge = the_judge()
        entries = cast("list[dict[str, Any]] | None", state["languages"])
        healthy = entries is None or any(e["name"] == "python" and e["available"] for e in entries)
        # Open without the token: nothing here tells of a caller's work (the cache counts are on /metrics)
        return {"status": "ok" if healthy else "degraded", "mode": judge.config.mode, "isolation": judge.isolation(),
                "languages": entries if entries is not None else "pending", "slots": judge.slots,
                "busy": judge.stats().busy, "queue_depth": admission().waiting}

    @app.get("/metrics", response_class=PlainTextResponse)
    async def prometheus() -> PlainTextResponse:
        metrics.queue_depth.set(admission().waiting)
        stats = the_judge().stats()
        metrics.slots_busy.set(stats.busy)
        metrics.cache_hits.set(stats.artifact_hits)
        metrics.cache_misses.set(stats.artifact_misses)
        return PlainTextResponse(generate_latest(metrics.registry), media_type=CONTENT_TYPE_LATEST)

    @app.post("/run_code", response_model=RunCodeResponse)
    async def run_code(body: RunCodeRequest, request: Request) -> Response:
        """Run one program (SandboxFusion's API): HTTP 200 whatever the program did."""
        return _json(await run_one(body, request))

    async def run_one(body: RunCodeRequest, request: Request) -> RunCodeResponse:
        arrived = _arrival(request)
        if not is_known_language(body.language):  # before a slot is waited for: the official client would retry
            raise RequestValidationError([{"loc": ("body", "language"), "type": "literal_error",
                                           "msg": f"unknown language {body.language!r}"}])
        judge = the_judge()

        async def run() -> RanCode:
            return await judge.run_code_async(body, settings.default_memory_mb, settings.output_bytes)

        ran, group = await admission().run(run, run_code_budget(body), _hang_up(request), caller=caller_of(request))
        waited = _queue_time(group, arrived)
        metrics.queue_time.observe(waited)
        response = ran.response(waited, pod)
        result = response.run_result or response.compile_result
        verdict = result.verdict if result and result.verdict else "SE" if response.status == "SandboxError" else "CE"
        metrics.cases.labels(ran.language, verdict).inc()
        metrics.latency.labels("/run_code", ran.language).observe(time.monotonic() - arrived)
        return response

    @app.post("/run_jupyter", response_model=schemas.RunJupyterResponse)
    async def run_jupyter(body: schemas.RunJupyterRequest, request: Request) -> Response:
        """Run cells in order in one Jupyter kernel (SandboxFusion's API): HTTP 200 whatever the cells did."""
        arrived = _arrival(request)
        judge = the_judge()

        async def run() -> schemas.RunJupyterResponse:
            return await judge.run_jupyter_async(body, settings.default_memory_mb, settings.output_bytes)

        response, group = await admission().run(run, gone=_hang_up(request), caller=caller_of(request))
        response.queue_time = _queue_time(group, arrived)
        response.executor_pod_name = pod
        metrics.queue_time.observe(response.queue_time)
        metrics.latency.labels("/run_jupyter", "python").observe(time.monotonic() - arrived)
        return _json(response)

    def caller_of(request: Request) -> str:
        """Whose work a request is: the caller it declares, else one of its own (the server's one caller when
        the operator shares the caches)."""
        if settings.share_caches:
            return callers.SHARED
        declared = request.headers.get(callers.HEADER)
        return callers.new_caller() if declared is None else "declared:" + callers.valid_caller(declared)

    async def judge_one(body: JudgeRequest, arrived: float, gone: Callable[[], Awaitable[object]] | None,
                        caller: str, tenant: Tenant | None = None) -> JudgeResponse:
        judge = the_judge()
        if body.cases is not None:
            cases: object = convert.cases_from(body.cases)
        elif body.test_cases is not None:
            cases = body.test_cases
        else:
            raise RequestValidationError([{"loc": ("body", "cases"), "msg": "give cases or test_cases",
                                           "type": "missing"}])
        submission = _output_shared(judge.submission(body.code, cases, body.language,
                                                     convert.limits_from(body.limits), body.checker,
                                                     body.stop_on_first_failure))
        result, group = await admission().run(lambda: judge.judge_submission_async(submission), gone=gone,
                                              tenant=tenant, caller=caller)
        waited = _queue_time(group, arrived)
        metrics.queue_time.observe(waited)
        for case in result.cases:
            metrics.cases.labels(submission.language, str(case.verdict)).inc()
        metrics.latency.labels("/judge", submission.language).observe(time.monotonic() - arrived)
        return convert.judge_response(result, waited)

    @app.post("/judge", response_model=JudgeResponse)
    async def judge_endpoint(body: JudgeRequest, request: Request) -> Response:
        """Judge one submission on all its cases; the headline verdict and every case's result.

        With ``X-Judgebox-Keepalive: 1`` (judgebox's own clients send it), a judging that has not finished
        within ``KEEPALIVE`` seconds is kept visibly alive: by then the request is validated and admitted (a
        422, 401, 413, or a 504 of admission refusing it, has come with its own status), so the server commits
        to 200 and streams one space every ``KEEPALIVE`` seconds until the JSON answer, which ends the body
        (JSON allows the leading whitespace). An error met after that commitment ends the body with
        ``{"detail": ..., "status": <the status it would have had>, "retry": true|false}``: ``retry`` true for
        :class:`Overloaded` (no case started within the wait: the client treats it as a 504 with
        ``Retry-After: 1``), false for the others (422, 500); a client that hung up gets nothing."""
        judged = judge_one(body, _arrival(request), _hang_up(request), caller_of(request))
        if request.headers.get(KEEPALIVE_HEADER) != "1":
            return _json(await judged)
        task = asyncio.ensure_future(judged)
        try:
            await asyncio.wait([task], timeout=KEEPALIVE)
        except BaseException:
            task.cancel()
            raise
        if task.done():
            return _json(task.result())  # its error, if any, answered by the handlers above with its status
        return StreamingResponse(_kept_alive(task), media_type="application/json")

    @app.post("/judge/batch", response_class=StreamingResponse,
              responses={200: {"content": {"application/x-ndjson": {"schema": BatchLine.model_json_schema()}}}})
    async def judge_batch(body: BatchRequest, request: Request) -> StreamingResponse:
        """Judge many submissions; one NDJSON line (a ``BatchLine``) per submission as each finishes.
        The submissions share one tenant: the request is as fair to others as a /judge of all their cases.
        With ``X-Judgebox-Keepalive: 1``, a blank line is sent every ``KEEPALIVE`` seconds no line was."""
        arrived = _arrival(request)
        tenant, caller = Tenant(), caller_of(request)
        beat = KEEPALIVE if request.headers.get(KEEPALIVE_HEADER) == "1" else None

        async def line(index: int, submission: JudgeRequest) -> str:
            try:
                result = await judge_one(submission, arrived, None, caller, tenant)
                return BatchLine(index=index, result=result).model_dump_json()
            except (JudgeboxError, RequestValidationError, Overloaded, UnicodeEncodeError, RecursionError) as exc:
                return BatchLine(index=index, error=_error_text(exc)).model_dump_json()
            except Exception:  # one submission must not cut the stream the others are still coming on
                log.exception("unhandled error in /judge/batch submission %d [%s]", index, request_id.get())
                return BatchLine(index=index, error=f"internal error; request id {request_id.get()}").model_dump_json()

        async def stream() -> AsyncIterator[str]:
            tasks: set[asyncio.Future[Any]] = {asyncio.ensure_future(line(i, r))
                                               for i, r in enumerate(body.submissions)}
            gone = asyncio.ensure_future(_hang_up(request)())
            try:
                while tasks:
                    done, tasks = await asyncio.wait(tasks | {gone}, timeout=beat,
                                                     return_when=asyncio.FIRST_COMPLETED)
                    if gone in done:
                        return  # the client hung up: the submissions not yet answered are cancelled below
                    tasks.discard(gone)
                    if not done:
                        yield "\n"  # keepalive: no line in KEEPALIVE seconds
                    for finished in done:
                        yield finished.result() + "\n"
            finally:
                gone.cancel()
                for task in tasks:
                    task.cancel()

        return StreamingResponse(stream(), media_type="application/x-ndjson")

    # SandboxFusion's dataset API (judgebox.datasets.online_judge): the datasets judgebox ships, and rows given
    # inline; a completion is judged on its row's tests as /judge judges them. Rows are read off the event loop
    # (plain handlers run on the framework's threads): a dataset's first reading does not stall the others.
    @app.get("/list_datasets")
    async def list_datasets() -> list[str]:
        return datasets.sandboxfusion_ids()

    @app.post("/list_ids")
    def list_ids(body: wire_datasets.GetPromptsRequest) -> list[int | str]:
        return online_judge.list_ids(body)

    @app.post("/get_prompts", response_model=list[wire_datasets.Prompt])
    def get_prompts(body: wire_datasets.GetPromptsRequest) -> list[wire_datasets.Prompt]:
        return online_judge.prompts(body)

    @app.post("/get_prompt_by_id", response_model=wire_datasets.Prompt)
    def get_prompt_by_id(body: wire_datasets.GetPromptByIdRequest) -> Response:
        return _json(online_judge.prompt_by_id(body))

    @app.post("/submit", response_model=wire_datasets.EvalResult,
              responses={503: {"description": "the judge failed on the submission (SE): no verdict is made up"}})
    async def submit(body: wire_datasets.SubmitRequest, request: Request) -> Response:
        """A completion judged on its dataset row's tests: SandboxFusion's EvalResult."""
        planned = await asyncio.to_thread(online_judge.submission, body)  # its rows' first reading, off the loop
        answer: JudgeResponse | RunCodeResponse | None = None
        if planned.judge is not None:
            answer = await judge_one(planned.judge, _arrival(request), _hang_up(request), caller_of(request))
        elif planned.run is not None:
            answer = await run_one(planned.run, request)
        return _json(planned.result(answer))

    @app.post("/get_metrics")
    def get_metrics(body: wire_datasets.GetMetricsRequest) -> dict[str, Any]:
        return online_judge.metrics(body)

    @app.exception_handler(Refused)
    async def refused(request: Request, exc: Refused) -> JSONResponse:
        return JSONResponse({"detail": exc.detail}, status_code=exc.status)

    @app.exception_handler(online_judge.JudgeFailed)
    async def judge_failed(request: Request, exc: online_judge.JudgeFailed) -> JSONResponse:
        log.warning("/submit: %s [%s]", str(exc)[:300], request_id.get())
        return JSONResponse({"detail": str(exc)}, status_code=503, headers={"Retry-After": "1"})

    @app.post("/openrlhf/reward", response_model=schemas.RewardModelAnswer,
              responses={503: {"description": "the judge judged no case of any sample (it is down): no rewards "
                                               "are made up"}})
    async def openrlhf_reward(body: schemas.RewardModelRequest, request: Request) -> Response:
        """OpenRLHF's ``--remote_rm_url``: each query's response judged on its label's test cases
        (:mod:`judgebox.openrlhf`); ``?preset=`` and ``?binary=`` choose the scoring."""
        preset, binary = openrlhf.settings(request.query_params)
        outcome, _ = await admission().run(lambda: openrlhf.score(body, the_judge(), preset, binary),
                                           gone=_hang_up(request), caller=caller_of(request))
        samples = metrics.reward_samples
        samples.labels("no_reward").inc(len(outcome.failed))
        samples.labels("no_code").inc(outcome.no_code)
        if outcome.answer is None:
            index, reason = outcome.failed[0]
            log.warning("/openrlhf/reward: the judge judged no case of the %d samples, answered 503 (sample %d: %s) "
                        "[%s]", len(body.query), index, reason[:300], request_id.get())
            detail = [{"sample": i, "reason": why} for i, why in outcome.failed]
            return JSONResponse({"detail": detail}, status_code=503, headers={"Retry-After": "1"})
        if outcome.failed:  # each judged twice; the others' rewards are answered all the same
            index, reason = outcome.failed[0]
            log.warning("/openrlhf/reward: %d of %d samples the judge failed on, rewarded %g and flagged "
                        "judgebox_no_reward (sample %d: %s) [%s]", len(outcome.failed), len(body.query),
                        openrlhf.NO_REWARD, index, reason[:300], request_id.get())
        samples.labels("scored").inc(len(body.query) - outcome.no_code - len(outcome.failed))
        return _json(outcome.answer)

    return app


class _StampArrival:
    """Records when a request arrived, before its body is read: queue times and deadlines count from there."""

    def __init__(self, app: object) -> None:
        self.app = app

    async def __call__(self, scope: dict, receive: object, send: object) -> None:
        scope["judgebox.arrived"] = time.monotonic()
        await self.app(scope, receive, send)  # type: ignore[operator]


def _output_shared(submission: Submission) -> Submission:
    """``submission`` with the output its answer returns bounded as a whole: ``ANSWER_OUTPUT_BYTES`` shared by
    its cases' stdout and stderr (each case's own bound, if less, kept). Bounded per case alone, a request of a
    few KB (10,000 cases of a program printing 1 MiB to each stream) would make the server hold ~20 GiB."""
    share = ANSWER_OUTPUT_BYTES // (2 * len(submission.cases))

    def bounded(limits: Limits) -> Limits:
        if limits.returned_output_bytes <= share:
            return limits
        return limits.replace(returned_output_bytes=share)

    cases = tuple(case if case.limits is None else dataclasses.replace(case, limits=bounded(case.limits))
                  for case in submission.cases)
    return dataclasses.replace(submission, limits=bounded(submission.limits), cases=cases)


def _arrival(request: Request) -> float:
    return request.scope.get("judgebox.arrived") or time.monotonic()


def _queue_time(group: Group, arrived: float) -> float:
    """From the request's arrival until its first job started on a slot (until now if none ran)."""
    return max(0.0, (group.started or time.monotonic()) - arrived)


def _hang_up(request: Request) -> Callable[[], Awaitable[None]]:
    """A coroutine function that returns when the client disconnects. Called once the body has been read,
    when the server's receive channel has nothing more to give but the disconnect."""
    async def gone() -> None:
        while (await request.receive())["type"] != "http.disconnect":
            pass
    return gone


class _ContextExecutor(ThreadPoolExecutor):
    """The event loop's default executor, passing the caller's context on to the thread (as
    ``asyncio.to_thread`` does), so that a build run off the loop queues its jobs in the request's group."""

    def submit(self, fn, /, *args, **kwargs):  # type: ignore[no-untyped-def]
        return super().submit(contextvars.copy_context().run, fn, *args, **kwargs)


def _json(model: BaseModel) -> Response:
    """The model serialised once by pydantic, skipping FastAPI's second validation pass (the model is
    already of the response type; ``response_model`` still documents it)."""
    return Response(model.model_dump_json(), media_type="application/json")


async def _kept_alive(task: asyncio.Future) -> AsyncIterator[bytes]:
    """A /judge answer kept alive (``X-Judgebox-Keepalive``): a space every ``KEEPALIVE`` seconds until
    ``task``'s JSON, or the JSON of the error it met (its status in the body: the 200 is already sent)."""
    try:
        yield b" "
        while not task.done():
            await asyncio.wait([task], timeout=KEEPALIVE)
            if not task.done():
                yield b" "
        try:
            yield _json(task.result()).body
        except ClientGone:
            return  # nobody reads it
        except Overloaded as exc:
            yield json.dumps({"detail": str(exc), "status": 504, "retry": True}).encode()
        except (JudgeboxError, RequestValidationError, UnicodeEncodeError, RecursionError) as exc:
            yield json.dumps({"detail": _error_text(exc), "status": 422, "retry": False}).encode()
        except Exception:
            log.exception("unhandled error in a kept-alive /judge [%s]", request_id.get())
            yield json.dumps({"detail": f"internal error; request id {request_id.get()}", "status": 500,
                              "retry": False}).encode()
    finally:
        task.cancel()  # the client hung up mid-stream: its queued work is cancelled


def _error_text(exc: Exception) -> str:
    if isinstance(exc, RequestValidationError):
        return json.dumps([e.get("msg") for e in exc.errors()])
    return f"{type(exc).__name__}: {exc}"


async def _check_languages(state: dict[str, object]) -> None:
    state["languages"] = await language_report(state["judge"])  # type: ignore[arg-type]
