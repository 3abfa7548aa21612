"""``judgebox score --report``: a real score run's HTML report, hostile dataset strings escaped, opened in
headless Chromium (no console message, the charts drawn on the screenshot, no text outside its box)."""

from __future__ import annotations

import html
import json
import re
import shutil
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

from judgebox.tools.report import VERDICT_COLOURS, render
from judgebox.tools.score import summarize

JUDGEBOX = str(Path(sys.executable).with_name("judgebox"))
CHROMIUM = shutil.which("chromium")
HOSTILE_ID = "</svg><img src=x onerror=alert(1)>"
HOSTILE_SOURCE = "<script>alert('source')</script>"
SUM = "a, b = map(int, input().split())\nprint(a + b)\n"
PROBLEMS = [
    {"id": HOSTILE_ID, "source": HOSTILE_SOURCE, "language": "python",
     "test_cases": {"inputs": ["1 2\n", "5 5\n", "0 0\n"], "outputs": ["3\n", "10\n", "0\n"]},
     "solutions": [SUM], "wrong_solutions": ["print(0)\n"]},
    {"id": "double", "source": "handmade", "language": "python",  # its own limits, in place of the run's
     "test_cases": {"inputs": ["4\n", "21\n"], "outputs": ["8\n", "42\n"], "time_limit": 2, "memory_limit": 256},
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


@pytest.mark.slow  # about 4 s in all on this busy 2-core machine
def test_the_report_draws_every_chart_from_the_run(scored: tuple[Path, Path, list[dict]]) -> None:
    page = scored[0].read_text()
    rows = scored[2]
    assert {r["kind"] for r in rows} == {"sample"} and len(rows) == 8
    for chart in ("verdicts", "sources", "times", "passk"):
        assert f'class="chart {chart}"' in page, chart
    times = page[page.index('class="chart times"'):]
    times = times[: times.index("</svg>")]
    assert times.count('class="point"') == sum(len(r["cases"]) for r in rows)
    # each row records the limits its cases ran under: the run's (scoring.engine.CPU_TIME_LIMIT), or the problem's
    # own; and the sandbox's CPU time of each case, which a CPU limit is drawn against
    assert {r["id"]: r["limits"]["time"] for r in rows if r["cases"]} == {HOSTILE_ID: 10, "double": 2}
    assert {r["limits"]["memory_mb"] for r in rows if r["id"] == "double" and r["cases"]} == {256}
    assert all(r["limits"]["clock"] == "cpu" and isinstance(c[2], float) for r in rows for c in r["cases"])
    assert 'class="limit"' in times and "each case&#x27;s own limit" in times and "the limits: 2 s, 10 s" in page
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


@pytest.mark.slow  # about 9 s in all on this busy 2-core machine
@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (scripts/setup.sh --test installs it)")
def test_the_report_opens_in_chromium_without_console_errors_and_renders_its_charts(
        scored: tuple[Path, Path, list[dict]], tmp_path: Path) -> None:
    # the control: the same way of looking sees a page's console errors (a fetch that fails logs none: the
    # static test above is what rules remote assets out)
    control = tmp_path / "control.html"
    control.write_text('<p>x</p><script>console.error("boom")</script>')
    seen = console_messages(chromium(control, tmp_path, "--dump-dom").stderr)
    assert any("boom" in line for line in seen), seen

    report = scored[0]
    dumped = chromium(probed(report, tmp_path), tmp_path, "--dump-dom", "--window-size=900,2600")
    assert dumped.returncode == 0 and console_messages(dumped.stderr) == [], dumped.stderr
    for chart in ("verdicts", "sources", "times", "passk"):
        assert f'class="chart {chart}"' in dumped.stdout, chart
    assert laid_out(dumped.stdout)["bad"] == []
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


# Run in the page once it is laid out: every SVG text inside its chart and clear of the others, every HTML box
# as wide as its content, the page no wider than the window; and the text a reader sees (tooltips are not).
PROBE = """<script>
const bad = [], near = (a, b) => a <= b + 0.5;
for (const svg of document.querySelectorAll("svg")) {
  const box = svg.getBoundingClientRect();
  const texts = [...svg.querySelectorAll("text")].map(t => [t.textContent, t.getBoundingClientRect()]);
  for (const [what, r] of texts)
    if (!(near(box.left, r.left) && near(r.right, box.right) && near(box.top, r.top) && near(r.bottom, box.bottom)))
      bad.push("outside its chart: " + what);
  texts.forEach(([a, ra], i) => texts.slice(i + 1).forEach(([b, rb]) => {
    if (Math.min(ra.right, rb.right) - Math.max(ra.left, rb.left) > 0.5
        && Math.min(ra.bottom, rb.bottom) - Math.max(ra.top, rb.top) > 0.5) bad.push("overlapping: " + a + " / " + b);
  }));
}
for (const el of document.body.querySelectorAll("*"))
  if (!el.closest("svg") && el.clientWidth > 0 && el.scrollWidth > el.clientWidth + 1)
    bad.push("wider than its box: <" + el.tagName + "> " + el.textContent.slice(0, 80));
if (document.documentElement.scrollWidth > innerWidth) bad.push("the page is wider than the window");
const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
let shown = "";
for (let node; (node = walker.nextNode());) if (!node.parentElement.closest("title")) shown += node.data + "\\n";
const out = document.createElement("pre");
out.id = "probe";
out.textContent = JSON.stringify({bad, shown});
document.body.append(out);
</script>"""


def probed(report: Path, folder: Path) -> Path:
    """A copy of the report with the probe at its end (the report itself has no script)."""
    copy = folder / f"probed-{report.name}"
    copy.write_text(report.read_text().replace("</body>", PROBE + "</body>"))
    return copy


def laid_out(dom: str) -> dict:
    found = re.search(r'<pre id="probe">(.*?)</pre>', dom, re.S)
    assert found, dom[-2000:]
    return json.loads(html.unescape(found.group(1)))


LONG_SOURCES = ["open-r1/verifiable-coding-problems-python-codeforces",
                "open-r1/verifiable-coding-problems-python-atcoder"]


@pytest.mark.slow  # 3 to 5 s on this busy 2-core machine (load 9 to 13), nearly all of it Chromium starting
@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (scripts/setup.sh installs it)")
def test_no_text_of_the_report_leaves_its_box_in_chromium(tmp_path: Path) -> None:
    """Long source names that differ only at their end, 100% pass rates with counts in the hundreds, pass@k
    and one limit for every case (the time axis in seconds): laid out by a real browser, every label stays
    inside its box, and each source's whole name is on the page."""
    rows = []
    for p in range(300):
        ok = p % 7 != 0
        for kind, passed in (("right", True), ("wrong", False), ("sample", ok)):
            verdict = "AC" if passed else "WA"
            rows.append({"id": f"p{p}", "kind": kind, "sample": 0, "source": LONG_SOURCES[p % 2], "language": "python",
                         "score": float(passed), "verdict": verdict, "error": "", "seconds": 0.1,
                         "cases": [[verdict, 0.05 + p / 100, 0.0004 + p / 50]],
                         "limits": {"time": 10, "clock": "cpu", "memory_mb": 1024}})
    rows += [dict(r, sample=1) for r in rows if r["kind"] == "sample"]  # two samples a problem: a pass@k curve
    report = tmp_path / "long.html"
    report.write_text(render(rows, summarize(rows), "judgebox score " + "long-named-data-" * 6 + ".jsonl"))
    dumped = chromium(probed(report, tmp_path), tmp_path, "--dump-dom", "--window-size=900,2600")
    assert dumped.returncode == 0 and 'class="chart passk"' in dumped.stdout, dumped.stderr
    found = laid_out(dumped.stdout)
    assert found["bad"] == []
    assert all(f"{source} ({kind})" in found["shown"].replace("\n", "") for source in LONG_SOURCES
               for kind in ("right", "wrong"))


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
