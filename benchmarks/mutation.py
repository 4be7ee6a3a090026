"""Mutation testing of the core's safety and interpolation modules, with mutmut.

Run: python benchmarks/mutation.py [MODULE ...] [--children 2] [--keep]

Each module in ``TESTS`` is mutated by mutmut (one small change at a time: a flipped
comparison, a changed constant or string, a dropped call or argument) and every mutant is run
against that module's own test files only, in a copy of the tree made in a temporary
directory (the work tree is never touched). A mutant is killed when a test fails (or times
out); it survives when every test passes, or when no test of the module reaches it. Each
module must kill at least ``GOAL`` of its non-equivalent mutants; ``EQUIVALENT`` lists the
mutants that change nothing observable, each with why. Surviving mutants are printed with
their diff. Exit status 1 when a module misses the goal.

mutmut (the ``mutation`` extra: ``pip install -e '.[mutation]'``) is installed on demand into
this Python when it is missing. Slow (minutes; run it under ``nice``): it is not part of the
test suite. mutmut leaves decorated functions alone (``template.parse`` and the parsing behind
it are ``lru_cache``d), so those are judged through the functions they call.

Last run (mutmut 3.8.1, 2 shared cores, after gRPC, secrets and the render fast path),
killed / non-equivalent mutants (total mutants, equivalent):
    masking    526 / 537  98%  (570, 33)
    trust      425 / 445  96%  (450, 5)   the survivors are in the pre-run check that skips renders
               (``_Quiet``): a wrong skip there is still refused by the gate when the request
               renders, so they change when a refusal is told, not whether
    values     216 / 231  94%  (235, 4)
    scopes     363 / 369  98%  (382, 13)
    expand     682 / 682 100%  (726, 44)  judged by the fast path's own tests too: every
               survivor of the quick way now fails a test or is listed as equivalent
    template    66 / 70   94%  (70, 0)
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GOAL = 0.90

# Each module and the test files that pin it: a mutant is judged by these alone.
TESTS: dict[str, list[str]] = {
    "masking": ["tests/test_masking.py"],
    "trust": ["tests/test_trust.py"],
    "values": ["tests/test_values.py", "tests/test_masking.py"],  # secret_name lives here
    "scopes": ["tests/test_scopes.py"],
    "expand": [
        "tests/test_template.py",
        "tests/test_masked_by_source.py",  # masked twins
        "tests/test_render_fast_path.py",  # the quick way against the general walk
    ],
    "template": ["tests/test_template.py"],
}

# Mutants that behave exactly as the original, by module: (function, the mutated line as
# mutmut writes it, stripped) -> why. Matching on the line, not on mutmut's number, keeps an
# entry valid when other code of the function moves.
CODEC = "codec names ignore case"
FALSE = "None is false, as False is"
ONE_OR_ALL = "only the first match is used, the best one for any n"
VERSION = "the version is only compared for a change, and it still changes"
EMPTY_CACHE = "the cache is still empty then: emptying it again changes nothing"
WHOLE = "each placeholder's piece is kept too: a whole text kept only saves the joining"
LABEL = "a label no variable name can be: any other such label does as well"
PLACE = "the place's cache key only has to differ from the other places' keys, and still does"
MEMO = "the same answer, memoized or not: the bound only limits what the memo holds"
SCALAR = "the last branch hands scalars back unchanged too"
OWN_KEY = "another key of its own, written and read alike: what is kept is found again"
NO_SECRET_KEY = "_plain_twin finds no secret key where _scan found none: None either way"
EQUIVALENT: dict[str, dict[tuple[str, str], str]] = {
    "masking": {
        ("_json_string", "return value if (isinstance(value, str)) or True else None"): (
            "a token the string pattern matched always decodes to a str"
        ),
        ("dotenv_secrets", "text = path.read_text(encoding=None)"): (
            "the locale's encoding, UTF-8 on every machine the tests run on"
        ),
        ("dotenv_secrets", 'text = path.read_text(encoding="UTF-8")'): CODEC,
        (
            "Masker._json_string",
            "masked = self.json(value) if (self._may_hold_secrets(value)) or True else value",
        ): "the check only skips a scan that would change nothing",
        (
            "Masker._json_string",
            "return token if masked == value else json.dumps(masked, ensure_ascii=None)",
        ): FALSE,
        (
            "Masker._multipart",
            'if not secret_field(name.group(1).decode("UTF-8", "replace")):',
        ): CODEC,
        ("Masker._multipart", 'self.learn(value.decode("UTF-8", "replace"))'): CODEC,
        ("Masker._multipart", 'parts[index] = head + sep + MASK.encode("UTF-8") + end'): CODEC,
        ("Masker.body", 'def body(self, data: bytes, content_type: str = "XXXX") -> bytes:'): (
            "no rule matches either type: both mean no type"
        ),
        ("Masker.body", 'ctype = content_type.split(";", )[0].strip().lower()'): (
            "the first piece is the same however many splits follow"
        ),
        ("Masker.body", 'ctype = content_type.split(";", 2)[0].strip().lower()'): (
            "the first piece is the same however many splits follow"
        ),
        (
            "Masker.body",
            'data = self._multipart(data, boundary.group(1).encode("LATIN-1", "replace"))',
        ): CODEC,
        ("Masker.body", 'text = data.decode("UTF-8")'): CODEC,
        ("Masker.body", 'return self.json(text).encode("UTF-8")'): CODEC,
        ("Masker.body", 'return self.text(self.pairs(text)).encode("UTF-8")'): CODEC,
        ("Masker.body", 'return self.text(text).encode("UTF-8")'): CODEC,
        ("Masker.header", 'return f"{scheme} {MASK}" if space or rest else MASK'): (
            "after strip(), a space found always has text after it"
        ),
        ("Masker.json", "while pos <= end:"): (
            "at the end no token matches: the rest is empty and the loop ends"
        ),
        ("Masker.json", "out.append(self._json_string(token, None))"): FALSE,
        ("Masker.json", 'elif token in "XX{[XX":'): "a punctuation token is one character",
        ("Masker.json", 'elif token in "XX}]XX":'): "a punctuation token is one character",
        (
            "Masker.json",
            'if top is not None and top.is_object and token in "XX:,XX":',
        ): "a punctuation token is one character",
        ("_Secrets.__init__", "self._sorted = None"): "sorting no values changes nothing",
        ("_Secrets.__init__", "self._sorted = False"): "sorting no values changes nothing",
        ("_Secrets.add", "bucket.sort(key=None, reverse=True)"): (
            "two secrets match at one place only when one is a prefix of the other, and then "
            "the longer sorts first either way"
        ),
        ("_Secrets.add", "bucket.sort(reverse=True)"): (
            "two secrets match at one place only when one is a prefix of the other, and then "
            "the longer sorts first either way"
        ),
        ("_Secrets.add", "self._sorted = None"): FALSE,
        ("_masked", "start = None"): "a slice from None starts at 0",
        ("_Secrets.mask", "if len(self._values) < self._FEW:"): (
            "both searches find the same runs of secrets"
        ),
        ("_Secrets.mask", "for i in range(len(text) + _PREFIX + 1):"): (
            "past the end a slice is shorter than every key of the index"
        ),
        ("_Secrets.mask", "for i in range(len(text) - _PREFIX + 2):"): (
            "past the end a slice is shorter than every key of the index"
        ),
        (
            "_Secrets.mask_bytes",
            'secrets = [secret.encode("UTF-8") for secret in self.values]',
        ): CODEC,
        (
            "_Secrets.mask_bytes",
            'return _masked(data, _found(data, secrets), MASK.encode("UTF-8"))',
        ): CODEC,
    },
    "trust": {
        ("summary", 'by_kind[need.kind][need.what] = ""'): "only the keys are listed",
        ("Gate._real", "folder = None"): "the cache of resolved folders only saves lstat calls",
        ("Gate._real", "folder = self._folders.get(None)"): (
            "the cache of resolved folders only saves lstat calls"
        ),
        ("Gate.sources", 'env = col.environments.get(env_name or "XXXX")'): (
            "no environment is named either way"
        ),
        (
            "Gate.sources",
            "os.path.join(f.path, FOLDER_FILE) for f in chain if f.path is not None or f.has_file",
        ): "a loaded folder has a path; one without folder.toml has nothing to read",
    },
    "values": {
        ("format_date", "dt = datetime(value.year, value.month, value.day, tzinfo=None)"): (
            "only the fields of a date's midnight are written: its zone is never read"
        ),
        ("format_date", "dt = datetime(value.year, value.month, value.day, )"): (
            "only the fields of a date's midnight are written: its zone is never read"
        ),
        (
            "preview",
            "text = json.dumps(value, ensure_ascii=None) if isinstance(value, str) "
            "else to_text(value)",
        ): FALSE,
        ("preview", r'text = text.replace("XX\nXX", "\\n")'): (
            "JSON text holds no raw newline: the replace never finds one"
        ),
        ("preview", r'text = text.replace("\n", "XX\\nXX")'): (
            "JSON text holds no raw newline: the replace never finds one"
        ),
        (
            "to_literal",
            "return value if parse_literal(value) == value "
            "else json.dumps(value, ensure_ascii=None)",
        ): FALSE,
    },
    "scopes": {
        (
            "RuntimeVars.__init__",
            "self.version = 1  # bumped on every change, so render caches know they are stale",
        ): "the cache starts from the runtime's version, whatever it is",
        ("RuntimeVars.clear", "self.version += 2"): VERSION,
        ("RuntimeVars.delete", "self.version += 2"): VERSION,
        ("RuntimeVars.set", "self.version += 2"): VERSION,
        ("Scopes.__init__", "self._cache_version = None"): EMPTY_CACHE,
        (
            "Scopes.__init__",
            "self._cache_version = runtime.version if (runtime is not None) and False else 0",
        ): EMPTY_CACHE,
        (
            "Scopes.__init__",
            "self._cache_version = runtime.version if runtime is not None else 1",
        ): ("without runtime variables the version is never read"),
        ("Scopes.closest", 'if expr.startswith("XX$XX") or self.get(expr) is not MISSING:'): (
            "an expression starting with $ has no name at its head: None all the same"
        ),
        ("Scopes.closest", "whole = difflib.get_close_matches(expr, names, )"): ONE_OR_ALL,
        ("Scopes.closest", "whole = difflib.get_close_matches(expr, names, n=2)"): ONE_OR_ALL,
        ("Scopes.closest", "close = difflib.get_close_matches(head.group(), names, )"): ONE_OR_ALL,
        ("Scopes.closest", "close = difflib.get_close_matches(head.group(), names, n=2)"): (
            ONE_OR_ALL
        ),
        ("Scopes.names", "seen.setdefault(name, )"): "the default is None either way",
    },
    "expand": {
        ("_dynamic", "return datetime.now(None)"): (
            "a naive now is local time, which format_date turns into the same instant"
        ),
        (
            "_may_name_secrets",
            "return _may_name_secrets_kept(text) if (len(text) <= 4096) and False "
            "else may_name_secret(text)",
        ): MEMO,
        (
            "_may_name_secrets",
            "return _may_name_secrets_kept(text) if (len(text) <= 4096) or True "
            "else may_name_secret(text)",
        ): MEMO,
        (
            "_may_name_secrets",
            "return _may_name_secrets_kept(text) if len(text) < 4096 else may_name_secret(text)",
        ): MEMO,
        (
            "_may_name_secrets",
            "return _may_name_secrets_kept(text) if len(text) <= 4097 else may_name_secret(text)",
        ): MEMO,
        ("_path_text", 'out += "[" + json.dumps(step, ensure_ascii=None) + "]"'): FALSE,
        ("_step", "if isinstance(step, str) or step in value:"): (
            "a dict meets only integer steps here (string keys are stepped inline in _walk)"
        ),
        ("_step", "if isinstance(step, str) and step not in value:"): (
            "a dict meets only integer steps here (string keys are stepped inline in _walk)"
        ),
        ("Renderer.__init__", "self._impure = None"): FALSE,
        ("Renderer.__init__", "self._impure = True"): (
            "each result's purity is judged from its own start; the renderer's own is never read"
        ),
        (
            "Renderer._expand_at",
            "elif cls is int or cls is float or cls is bool and value is None:",
        ): SCALAR,
        (
            "Renderer._expand_at",
            "elif cls is int or cls is float and cls is bool or value is None:",
        ): SCALAR,
        (
            "Renderer._expand_at",
            "elif cls is int and cls is float or cls is bool or value is None:",
        ): SCALAR,
        ("Renderer._expand_at", 'key = ("XXvXX", path)'): OWN_KEY,
        ("Renderer._expand_at", 'key = ("V", path)'): OWN_KEY,
        ("Renderer._expand_at", "hit = self._shared.get(None, MISSING)"): (
            "the first look, for a container: a miss scans it and stores it again, or finds it "
            "at the second look"
        ),
        (
            "Renderer._expand_at",
            "twin = _plain_twin(value) if (found & _SECRET_KEY) or True else None",
        ): NO_SECRET_KEY,
        ("Renderer._expand_at", "twin = _plain_twin(value) if found | _SECRET_KEY else None"): (
            NO_SECRET_KEY
        ),
        ("Renderer._expand_items", "item, twin = self._expand_at(v, (*path, i), None)"): FALSE,
        ("Renderer._follow", "return self.expand_at(value, None), path"): (
            "the rendered text is only stepped into, and a string has no steps"
        ),
        ("Renderer._follow", "if target is MISSING and target is _CYCLE:"): (
            "MISSING and _CYCLE are no strings: _follow hands them back as they are"
        ),
        ("Renderer._lookup", "if value is MISSING and value is _CYCLE:"): (
            "_expand_at hands MISSING and _CYCLE back as they are, without a twin"
        ),
        ("Renderer._text", "return self._join(tpl, None)"): FALSE,
        (
            "Renderer._walk",
            "if value.__class__ is dict and step.__class__ is not str:  # the common step, inline",
        ): "_step takes the same step as the inline path",
        ("Renderer._whole", "out: tuple[str, str | None] | None = None"): WHOLE,
        ("Renderer._whole", "out: tuple[str, str | None] | None = self._shared.get(None)"): WHOLE,
        ("Renderer._whole", "self._shared[key] = None"): WHOLE,
        ("Renderer.expand", 'return self.expand_at(value, ("XX<value>XX", value))'): LABEL,
        ("Renderer.expand", 'return self.expand_at(value, ("<VALUE>", value))'): LABEL,
        ("Renderer.expand_at", "return self._expand_at(value, path, None)[0]"): FALSE,
        ("Renderer.expand_at", "return self._expand_at(value, path, True)[0]"): (
            "only the result is handed back: its twin, hidden or not, is dropped"
        ),
        ("Renderer.piece", "return self._piece(ph, place, None)"): (
            "what survives is a literal's piece or a missing key's: kept under a key no lookup "
            "asks for, the literal's is made again alike, and the missing key's is never kept"
        ),
        ("Renderer.piece", "return self._piece(ph, None, key)"): (
            "what survives is a key missing on the quick way, missing on the general one too: "
            "left as written in every place"
        ),
        ("Renderer.piece", "if not ph.secret or _may_name_secrets(text):"): (
            "_plain_twin finds no secret key where the quick look finds none, and a secret "
            "placeholder's twin is set whole below"
        ),
        ("Renderer._whole", 'key = ("XXjXX" if json_place else "t", text)'): PLACE,
        ("Renderer._whole", 'key = ("J" if json_place else "t", text)'): PLACE,
        ("Renderer._whole", 'key = ("j" if json_place else "XXtXX", text)'): PLACE,
        ("Renderer._whole", 'key = ("j" if json_place else "T", text)'): PLACE,
        (
            "Renderer._whole",
            "out = self._join(parse_json(text) if (json_place) or True else parse(text), json_place)",
        ): (
            "parse_json gives a text the same segments; where it marks a placeholder inside a "
            "JSON string, a text place does not look"
        ),
        ("Renderer.render_text", "return self._whole(text, None)[0]"): FALSE,
        ("Renderer.render_text_pair", "return self._whole(text, None)"): FALSE,
    },
    "template": {},
}

KILLED = {"killed", "timeout", "segfault", "caught by type check"}

# Run inside the copy with mutmut importable: every mutant's status and diff, as JSON.
_DUMP = """
import json, sys
from pathlib import Path
from mutmut.mutation.data import SourceFileMutationData
from mutmut.mutation.diff_apply import get_diff_for_mutant
from mutmut.stats import status_by_exit_code
path = Path(sys.argv[1])
data = SourceFileMutationData(path=path)
data.load()
out = {}
for name, code in data.exit_code_by_key.items():
    status = status_by_exit_code[code]
    diff = "" if status == "killed" else get_diff_for_mutant(name, path=path)
    out[name] = [status, diff]
json.dump(out, sys.stdout)
"""


@dataclass
class Result:
    module: str
    total: int = 0
    killed: int = 0
    equivalent: list[str] = field(default_factory=list)
    unmet: list[tuple[str, str]] = field(default_factory=list)  # listed, but no such survivor
    survivors: list[tuple[str, str, str]] = field(default_factory=list)  # name, status, diff
    seconds: float = 0.0

    @property
    def score(self) -> float:
        judged = self.total - len(self.equivalent)
        return self.killed / judged if judged else 1.0


def ensure_mutmut() -> Path:
    """The mutmut command beside this Python, installed on demand."""
    exe = Path(sys.executable).parent / "mutmut"
    if not exe.exists():
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "mutmut>=3.8,<4"], check=True)
    return exe


def mutated_lines(diff: str) -> str:
    """The lines a mutant adds, stripped and joined: what ``EQUIVALENT`` matches."""
    return " / ".join(
        line[1:].strip()
        for line in diff.splitlines()
        if line.startswith("+") and not line.startswith("+++")
    )


def function_of(name: str) -> str:
    """``pigeon.masking.xǁMaskerǁurl__mutmut_3`` -> ``Masker.url``."""
    tail = name.rpartition(".")[2].rpartition("__mutmut_")[0]
    return tail.removeprefix("x_").removeprefix("xǁ").replace("ǁ", ".")


# mutmut forks each mutant's run from a process that has already run the tests: results kept
# by ``functools.lru_cache`` there (parsed templates) would answer for the mutated code.
_CONFTEST = """
import functools
import sys


def pytest_sessionstart(session):
    for name, module in list(sys.modules.items()):
        if name == "pigeon" or name.startswith("pigeon."):
            for value in list(vars(module).values()):
                if isinstance(value, functools._lru_cache_wrapper):
                    value.cache_clear()
"""


def prepare(work: Path, module: str, tests: list[str]) -> None:
    """A copy of the tree with mutmut's settings for one module and its tests."""
    shutil.copytree(ROOT / "src", work / "src", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "tests", work / "tests", ignore=shutil.ignore_patterns("__pycache__"))
    settings = {
        "source_paths": ["src"],
        "only_mutate": [f"src/pigeon/{module}.py"],
        "pytest_add_cli_args_test_selection": tests,
        "pytest_add_cli_args": ["-p", "no:randomly", "-p", "no:cacheprovider", "-n", "0", "-q"],
        "use_git_change_detection": False,
        "also_copy": ["conftest.py"],
    }
    (work / "conftest.py").write_text(_CONFTEST, encoding="utf-8")
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8") + "\n[tool.mutmut]\n"
    text += "".join(f"{key} = {json.dumps(value)}\n" for key, value in settings.items())
    (work / "pyproject.toml").write_text(text, encoding="utf-8")


def run_module(mutmut: Path, module: str, children: int, keep: bool) -> Result:
    result = Result(module)
    work = Path(tempfile.mkdtemp(prefix=f"pigeon-mutation-{module}-"))
    started = time.monotonic()
    try:
        prepare(work, module, TESTS[module])
        with open(work / "mutmut.log", "wb") as log:
            subprocess.run(
                ["nice", "-n", "19", str(mutmut), "run", "--max-children", str(children)],
                cwd=work,
                stdout=log,
                stderr=subprocess.STDOUT,
                check=False,
            )
        dump = subprocess.run(
            [sys.executable, "-c", _DUMP, f"src/pigeon/{module}.py"],
            cwd=work,
            capture_output=True,
            text=True,
            check=False,
        )
        if dump.returncode != 0:
            tail = (work / "mutmut.log").read_text(errors="replace")[-2000:]
            raise SystemExit(f"{module}: mutmut failed\n{tail}\n{dump.stderr}")
        statuses: dict[str, list[str]] = json.loads(dump.stdout)
    finally:
        if keep:
            print(f"{module}: kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    result.seconds = time.monotonic() - started
    known = EQUIVALENT.get(module, {})
    met = set()
    for name, (status, diff) in sorted(statuses.items(), key=lambda item: _order(item[0])):
        result.total += 1
        entry = (function_of(name), mutated_lines(diff))
        if status in KILLED:
            result.killed += 1
        elif entry in known:
            result.equivalent.append(name)
            met.add(entry)
        else:
            result.survivors.append((name, status, diff))
    result.unmet = [entry for entry in known if entry not in met]
    return result


def _order(name: str) -> tuple[str, int]:
    head, _, number = name.rpartition("__mutmut_")
    return head, int(number) if number.isdigit() else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("modules", nargs="*", help=f"some of {', '.join(TESTS)} (default: all)")
    parser.add_argument("--children", type=int, default=2, help="mutants run at once")
    parser.add_argument("--keep", action="store_true", help="keep each module's copy")
    args = parser.parse_args()
    unknown = sorted(set(args.modules) - set(TESTS))
    if unknown:
        parser.error(f"unknown modules: {', '.join(unknown)}")
    mutmut = ensure_mutmut()
    results = []
    for module in args.modules or TESTS:
        result = run_module(mutmut, module, args.children, args.keep)
        results.append(result)
        for name, status, diff in result.survivors:
            print(f"\n{name} ({function_of(name)}): {status}\n{diff}")
        for function, line in result.unmet:  # the code moved on: the entry can go
            print(f"{module}: listed as equivalent, no such mutant survives: {function}: {line}")
        print(
            f"{module}: {result.killed}/{result.total - len(result.equivalent)} killed "
            f"({result.score:.0%}), {len(result.equivalent)} equivalent, "
            f"{len(result.survivors)} surviving, {result.seconds:.0f} s",
            flush=True,
        )
    print("\nmodule      killed / non-equivalent (total, equivalent)")
    for r in results:
        judged = r.total - len(r.equivalent)
        mark = "" if r.score >= GOAL else f"  below {GOAL:.0%}"
        print(
            f"{r.module:<11} {r.killed:>4} / {judged:<4} {r.score:>5.1%}  "
            f"({r.total}, {len(r.equivalent)}){mark}"
        )
    return 0 if all(r.score >= GOAL for r in results) else 1


if __name__ == "__main__":
    os.environ.setdefault("PYTHONDONTWRITEBYTECODE", "1")
    sys.exit(main())
