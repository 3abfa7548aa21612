"""The prompts of a dataset's rows, worded as SandboxFusion's dataset classes word them (so a prompt is the same
text on either server): HumanEval's code (fenced, with an instruction, when ``extra.is_freeform``), MBPP's
task with its tests (few-shot: three of MBPP's own tasks worked first), CommonOJ's statement with a
language instruction, AutoEval's question in its template."""

from __future__ import annotations

from functools import cache
from string import Template

from judgebox import datasets
from judgebox.datasets.rows import Refused, Resolved, Row
from judgebox.wire.datasets import Prompt, TestConfig

_FREEFORM = {"en": "Please complete the above code according to the requirements in the docstring. Write the "
                   "complete code and wrap it in markdown syntax. The code should not contain `Main` function.",
             "zh": "请按照docstring的要求补全如上代码，写出完整的代码，代码要用markdown语法包裹。"
                   "代码不要包含`Main`函数"}
_STDIO = {"en": " Your program should read input from standard input and write output to standard output.",
          "zh": "你的程序应该从标准输入读取数据，并将结果输出到标准输出。"}
_OJ = {"en": {"default": "Please implement complete executable code with an entry point in {language}." + _STDIO["en"],
              "cpp": "Please implement complete executable code including a main function in C++." + _STDIO["en"],
              "python": "Please implement a complete Python script." + _STDIO["en"],
              "java": "Please implement a complete Java program with a public class named Main. Your class should "
                      "include a public static void main(String[] args) method. Your program should read input from "
                      "System.in and write output to System.out."},
       "zh": {"default": "请使用 {language} 实现一个完整的可执行程序，包含程序入口。" + _STDIO["zh"],
              "cpp": "请使用 C++ 实现一个完整的可执行程序，包含 main 函数。" + _STDIO["zh"],
              "python": "请编写一个完整的 Python 脚本。" + _STDIO["zh"],
              "java": "请实现一个完整的 Java 程序，包含一个名为 Main 的公共类。你的类中应包含 "
                      "public static void main(String[] args) 方法。你的程序应该从 System.in 读取输入，"
                      "并将结果输出到 System.out。"}}
_MBPP_TASK = "You are an expert Python programmer, and here is your task: {text} Your code should pass these tests:\n\n"
MBPP_FEWSHOT_IDS = ("mbpp/2", "mbpp/3", "mbpp/4")  # the worked examples of MBPP's few-shot prompt


def prompt(resolved: Resolved, row: Row, config: TestConfig) -> Prompt:
    locale = config.locale or "en"
    text = row.text
    if resolved.eval_class == "HumanEvalDataset":
        if config.extra.get("is_freeform"):
            text = f"```{row.language}\n{text}\n```\n\n{_FREEFORM.get(locale, _FREEFORM['en'])}"
    elif resolved.eval_class == "MBPPDataset":
        if config.is_fewshot:
            text = "\n".join([*_mbpp_examples(), _MBPP_TASK.format(text=text) + "\n".join(row.shown_tests[:2])
                              + "\n[BEGIN]\n"])
        else:
            text = _MBPP_TASK.format(text=text) + "\n".join(row.shown_tests)
    elif resolved.eval_class == "CommonOJDataset":
        language = config.language or row.language
        wording = _OJ.get(locale, _OJ["en"])
        text += "\n\n" + wording.get(language, wording["default"]).format(language=language)
    else:
        text = _autoeval_prompt(row, config)
    return Prompt(id=row.id, prompt=text, labels=row.labels)


@cache
def _mbpp_examples() -> tuple[str, ...]:
    """MBPP's few-shot examples: three of its own tasks, each with its tests and its reference between
    [BEGIN] and [DONE]."""
    by_id = {r["id"]: r for r in datasets.get("mbpp").rows()}
    return tuple(_MBPP_TASK.format(text=by_id[i]["prompt"]) + "\n".join(by_id[i]["meta"]["test_list"])
                 + f"\n[BEGIN]\n{by_id[i]['solutions'][0]}\n[DONE]" for i in MBPP_FEWSHOT_IDS)


def _autoeval_prompt(row: Row, config: TestConfig) -> str:
    context = config.extra.get("context", row.labels.get("context"))
    fewshot = config.extra.get("fewshot", row.labels.get("fewshot")) if config.is_fewshot else None
    template = config.extra.get("prompt_template", row.labels.get("prompt_template"))
    if config.is_fewshot and fewshot is None:
        raise Refused(f"row {row.id} has no fewshot (labels.fewshot or config.extra.fewshot)")
    if template:
        return Template(str(template)).safe_substitute(question=row.text, fewshot=fewshot or "",
                                                       context=context or "", locale=config.locale or "")
    question, answer = ("问题：", "答案：") if config.locale == "zh" else ("Question:", "Answer:")
    parts = [str(p) for p in (context, "----------------" if context and fewshot else None, fewshot) if p]
    if not parts:
        return row.text
    return "\n\n".join([*parts, f"{question}{row.text}", f"{answer}\n"])
