"""``judgebox score --report``: a real score run's HTML report, hostile dataset strings escaped, opened in
headless Chromium (no console message, the charts drawn on the screenshot)."""

from __future__ import annotations

import json
import re
import shutil
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

from judgebox.report import VERDICT_COLOURS, render
from judgebox.scoring import summarize

JUDGEBOX = str(Path(sys.executable).with_name("judgebox"))
CHROMIUM = shutil.which("chromium")
HOSTILE_ID = "</svg><img src=x onerror=alert(1)>"
HOSTILE_SOURCE = "<script>alert('source')</script>"
SUM = "a, b = map(int, input().split())\nprint(a + b)\n"
PROBLEMS = [
    {"id": HOSTILE_ID, "source": HOSTILE_SOURCE, "language": "python",
     "test_cases": {"inputs": ["1 2\n", "5 5\n", "0 0\n"], "outputs": ["3\n", "10\n", "0\n"]},
     "solutions": [SUM], "wrong_solutions": ["print(0)\n"]},
    {"id": "double", "source": "handmade", "language": "python",
     "test_cases": {"inputs": ["4\n", "21\n"], "outputs": ["8\n", "42\n"]},
     "solutions": ["print(2 * int(input()))\n"], "wrong_solutions": ["print(int(input()) + 2)\n"]},
]
SAMPLES = [
    {"id": HOSTILE_ID, "completions": ["```python\n" + SUM + "```", "print(3)", "raise SystemExit(1)",
                                       "```python\n" + SUM + "```"]},
    {"id": "double", "completions": ["print(2 * int(input()))", "print(8)", "```\nimport sys\n```",
                                     "no code here ```rust\nfn main() {}\n```"]},
]


def judgebox(*args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run([JUDGEBOX, *args], capture_output=True, text=True, timeout=timeout, check=False)


@pytest.fixture(scope="module")
def scored(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, list[dict]]:
    """One real score run of the samples and one of the known solutions, each with its report."""
    folder = tmp_path_factory.mktemp("report")
    problems, samples = folder / "problems.jsonl", folder / "samples.jsonl"
    problems.write_text("".join(json.dumps(p) + "\n" for p in PROBLEMS))
    samples.write_text("".join(json.dumps(s) + "\n" for s in SAMPLES))
    sampled = judgebox("score", str(problems), "--samples", str(samples), "--out", str(folder / "samples.out"),
                       "--report", str(folder / "samples.html"))
    assert sampled.returncode == 0, sampled.stderr
    known = judgebox("score", str(problems), "--report", str(folder / "known.html"))  # no --out: a scratch one
    assert known.returncode == 0, known.stderr
    rows = [json.loads(line) for line in (folder / "samples.out").read_text().splitlines()]
    return folder / "samples.html", folder / "known.html", rows


def test_the_report_draws_every_chart_from_the_run(scored: tuple[Path, Path, list[dict]]) -> None:
    page = scored[0].read_text()
    rows = scored[2]
    assert {r["kind"] for r in rows} == {"sample"} and len(rows) == 8
    for chart in ("verdicts", "sources", "times", "passk"):
        assert f'class="chart {chart}"' in page, chart
    times = page[page.index('class="chart times"'):]
    times = times[: times.index("</svg>")]
    assert times.count('class="point"') == sum(len(r["cases"]) for r in rows)
    assert 'class="limit"' in times and "limit 10 s" in times  # the cases ran under scoring.engine.CPU_TIME_LIMIT
    passk = page[page.index('class="chart passk"'):]
    assert passk[: passk.index("</svg>")].count('class="point"') == 4  # k = 1..4: four samples a problem
    assert "pass@1" in page and "model samples" in page


def test_known_solutions_report_keeps_right_and_wrong_apart(scored: tuple[Path, Path, list[dict]]) -> None:
    page = scored[1].read_text()
    assert "known-right solutions" in page and "known-wrong solutions" in page
    assert 'class="chart passk"' not in page  # one solution a problem: no curve
    assert page.count("1/1 passed, 100%") >= 2 and page.count("0/1 passed, 0%") >= 2  # per source: right, wrong


@pytest.mark.parametrize("report", [0, 1])
def test_dataset_strings_are_escaped_and_nothing_is_fetched(scored: tuple[Path, Path, list[dict]], report: int) -> None:
    page = scored[report].read_text()
    assert "<script" not in page.lower() and "<img" not in page.lower()
    assert "&lt;script&gt;alert(&#x27;source&#x27;)&lt;/script&gt;" in page
    assert "&lt;/svg&gt;&lt;img src=x onerror=alert(1)&gt;" in page
    # the id's own escaped text says src=x: what remains must load nothing
    assert not re.search(r"""(src|href)\s*=|url\(|@import|https?://""", page.replace("img src=x", ""), re.I)


def test_render_escapes_every_field_it_shows() -> None:
    evil = '"><script>x()</script>'
    rows = [{"id": evil, "kind": "sample", "sample": 0, "source": evil, "language": "python", "score": 0.0,
             "verdict": evil, "error": evil, "cases": [[evil, 0.5]], "seconds": 0.5},
            {"id": evil, "kind": "sample", "sample": 1, "source": evil, "language": "python", "score": 1.0,
             "verdict": "AC", "error": "", "cases": [["AC", 0.25]], "seconds": 0.25}]
    page = render(rows, summarize(rows, bad_records=[evil]), evil)
    assert "<script" not in page and evil not in page
    assert page.count("&quot;&gt;&lt;script&gt;") >= 6  # title, id, source, verdict, error, bad record


def chromium(page: Path, folder: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    """Headless Chromium on a local file, its console logged to stderr; as root it needs --no-sandbox (that is
    the browser's own sandbox); no proxy and no name resolution, so nothing off the machine can be reached."""
    return subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
         f"--user-data-dir={folder / 'profile'}", "--enable-logging=stderr", "--v=0", "--no-proxy-server",
         "--host-resolver-rules=MAP * ~NOTFOUND", *flags, page.as_uri()],
        capture_output=True, text=True, timeout=120, check=False)


def console_messages(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if ":CONSOLE" in line]


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (scripts/setup.sh installs it)")
def test_the_report_opens_in_chromium_without_console_errors_and_renders_its_charts(
        scored: tuple[Path, Path, list[dict]], tmp_path: Path) -> None:
    # the control: the same way of looking sees a page's console errors (a fetch that fails logs none: the
    # static test above is what rules remote assets out)
    control = tmp_path / "control.html"
    control.write_text('<p>x</p><script>console.error("boom")</script>')
    seen = console_messages(chromium(control, tmp_path, "--dump-dom").stderr)
    assert any("boom" in line for line in seen), seen

    report = scored[0]
    dumped = chromium(report, tmp_path, "--dump-dom")
    assert dumped.returncode == 0 and console_messages(dumped.stderr) == [], dumped.stderr
    for chart in ("verdicts", "sources", "times", "passk"):
        assert f'class="chart {chart}"' in dumped.stdout, chart
    shot = tmp_path / "report.png"
    taken = chromium(report, tmp_path, f"--screenshot={shot}", "--window-size=900,2600", "--hide-scrollbars")
    assert taken.returncode == 0 and console_messages(taken.stderr) == [], taken.stderr
    width, height, pixels = read_png(shot.read_bytes())
    assert (width, height) == (900, 2600)
    colours = {pixels[i:i + 3] for i in range(0, len(pixels), 3)}
    for verdict in ("AC", "WA", "RE"):  # the verdict bars and the time points, in the verdicts' colours
        assert bytes.fromhex(VERDICT_COLOURS[verdict][1:]) in colours, verdict
    assert bytes.fromhex("2471a3") in colours  # the pass@k curve
    assert bytes.fromhex("2e86c1") in colours  # the pass rate bars


def read_png(data: bytes) -> tuple[int, int, bytes]:
    """Width, height and the RGB bytes of a non-interlaced 8-bit RGB or RGBA PNG (what Chromium writes)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    chunks, at = {}, 8
    idat = b""
    while at < len(data):
        length, kind = struct.unpack(">I4s", data[at:at + 8])
        body = data[at + 8:at + 8 + length]
        if kind == b"IDAT":
            idat += body
        chunks.setdefault(kind, body)
        at += 12 + length
    width, height, depth, colour_type, _, _, interlace = struct.unpack(">IIBBBBB", chunks[b"IHDR"])
    assert depth == 8 and colour_type in (2, 6) and interlace == 0
    channels = 3 if colour_type == 2 else 4
    stride = width * channels
    raw, previous, out = zlib.decompress(idat), bytearray(stride), bytearray()
    for y in range(height):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up, corner = previous[i], previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + up) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 0xFF
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                line[i] = (line[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)) & 0xFF
        out += line if channels == 3 else bytes(b for j in range(0, stride, 4) for b in line[j:j + 3])
        previous = line
    return width, height, bytes(out)
