"""``judgebox score``: how a dataset's known solutions, or a model's samples, score.

One idea a module: :mod:`.formats` (the problem files people have, in one shape, each read within
the bound of one record), :mod:`.parquet` (Parquet decoded by a child the kernel caps), :mod:`.samples`
(completions joined by id, pass@k), :mod:`.results` (the results file: written as samples finish,
resumed), :mod:`.engine` (what to judge and judging it), :mod:`.summary` (rows into figures: the data a
terminal table, ``--json`` or a report shows), :mod:`.display` (the terminal table), :mod:`.command`
(the command itself).
"""

from judgebox.datasets.metrics import pass_at_k, pass_at_ks
from judgebox.tools.score.formats import FORMATS, BadRecord, Problem, read_problems
from judgebox.tools.score.results import load as load_results
from judgebox.tools.score.samples import unreported_ks
from judgebox.tools.score.summary import summarize, summarize_file

__all__ = ["FORMATS", "BadRecord", "Problem", "load_results", "pass_at_k", "pass_at_ks", "read_problems",
           "summarize", "summarize_file", "unreported_ks"]
