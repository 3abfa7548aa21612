"""Every language judgebox knows: one short declarative entry each (see ``spec.LanguageSpec``).

A language whose toolchain is missing, or whose self-test fails on this machine, is listed as
unavailable with the reason; nothing here assumes a toolchain is installed.
"""

from __future__ import annotations

import re

from judgebox.languages import cpp_split, go_split, java_split, js_split, rust_split
from judgebox.languages.spec import LanguageSpec, LibraryProbe, SelfTest

PYTHON_OUT_OF_MEMORY = r"^MemoryError\b"
JAVA_OUT_OF_MEMORY = r"java\.lang\.OutOfMemoryError"
ECHO_C = "#include <stdio.h>\nint main(){char s[64];int n;scanf(\"%63s %d\",s,&n);printf(\"%s %d\\n\",s,n);}"
ECHO_CPP = "#include <bits/stdc++.h>\nint main(){std::string s;int n;std::cin>>s>>n;std::cout<<s<<' '<<n<<'\\n';}"
ECHO_JAVA = ("import java.util.*;\npublic class Main { public static void main(String[] a) {"
             " Scanner s = new Scanner(System.in); System.out.println(s.next() + \" \" + s.nextInt()); } }")
ECHO_RUST = ("use std::io::*;\nfn main() { let mut s = String::new(); stdin().read_to_string(&mut s).unwrap();"
             " let v: Vec<&str> = s.split_whitespace().collect(); println!(\"{} {}\", v[0], v[1]); }")
CPP_FLAGS = ("-O2", "-pipe", "-static", "-s", "-DONLINE_JUDGE")
# TypeScript is transpiled without a type check (as ts-node --transpile-only does): judged programs rarely
# ship the type declarations (@types/node) a full check needs, but syntax errors are compile errors.
# esModuleInterop: `import assert from "assert"` (a default import of a CommonJS module, as tsx and
# SandboxFusion's tests write it) is the module itself, not its missing `default` export.
TRANSPILE_TS = (  # a command template: JavaScript's own braces are doubled
    "const ts = require('typescript'), fs = require('fs');"
    " const out = ts.transpileModule(fs.readFileSync('{source}', 'utf8'), {{reportDiagnostics: true,"
    " compilerOptions: {{target: ts.ScriptTarget.ES2020, module: ts.ModuleKind.CommonJS, esModuleInterop: true}}}});"
    " const errors = (out.diagnostics || []).map(d => ts.flattenDiagnosticMessageText(d.messageText, '\\n'));"
    " if (errors.length) {{ console.error(errors.join('\\n')); process.exit(1); }}"
    " fs.writeFileSync('{workdir}/main.js', out.outputText);")


# The libraries SandboxFusion's images ship that its datasets' programs use, from Debian's packages
# (scripts/setup.sh). All live under /usr, which the sandbox reads; each runtime is told where below.
PYTHON_LIBRARIES = ("sortedcontainers", "numpy", "scipy", "pandas", "sympy", "networkx")
JAVA_LIBRARIES = java_split.LIBRARIES  # org.javatuples, on both sides of the assert harness too
PROBE_PYTHON = ("import importlib\nfor name in " + repr(PYTHON_LIBRARIES) + ":\n"
                "    try:\n        print(name, importlib.import_module(name).__version__)\n"
                "    except ImportError:\n        pass")
PROBE_JAVA = ("public class Main { public static void main(String[] a) throws Exception {"
              " java.util.Properties p = new java.util.Properties(); p.load(org.javatuples.Pair.class"
              ".getResourceAsStream(\"/META-INF/maven/org.javatuples/javatuples/pom.properties\"));"
              " System.out.println(\"javatuples \" + p.getProperty(\"version\")); } }")
PROBE_LODASH = "console.log('lodash ' + require('lodash').VERSION);"
PROBE_LUA = "local ok, lu = pcall(require, 'luaunit')\nif ok then print('luaunit ' .. lu.VERSION) end"
PROBE_PERL = ("for my $m ('Test::Deep', 'Data::Compare') { (my $f = \"$m.pm\") =~ s{::}{/}g;"
              " print \"$m \", $m->VERSION, \"\\n\" if eval { require $f; 1 } }")


def _cpp(name: str, standard: str, aliases: tuple[str, ...] = ()) -> LanguageSpec:
    return LanguageSpec(
        name, "main.cpp", ("{program}",), SelfTest(ECHO_CPP), aliases=aliases,
        compile=("/usr/bin/g++", f"-std={standard}", *CPP_FLAGS, "-o", "{workdir}/main", "{source}"),
        artifact="main", requires=("/usr/bin/g++",),
        pch_flags=(f"-std={standard}", "-O2", "-DONLINE_JUDGE"),
        split_asserts=cpp_split.harness(name, "/usr/bin/g++", f"-std={standard}",
                                        (f"-std={standard}", "-O2", "-DONLINE_JUDGE"), "main.cpp"),
        description=f"g++ -std={standard} -O2, static; bits/stdc++.h precompiled")


def _java_entry(code: str) -> str:
    """judgebox compiles Main.java and runs class Main. A public class with another name loses its
    ``public`` (the file must be named after it); a program whose ``main`` is in another class (a
    ``public class Solution`` with its own main, say) gets a launcher class Main that calls it."""
    code = re.sub(r"\bpublic\s+(final\s+)?class\s+(?!Main\b)(\w+)", r"\1class \2", code)
    entry = re.search(r"\bstatic\s+void\s+main\s*\(", code)
    if entry is None or re.search(r"\b(class|interface|enum|record)\s+Main\b", code):
        return code
    owners = re.findall(r"\bclass\s+(\w+)", code[:entry.start()])
    return code + java_split.launcher(owners[-1]) if owners else code


def _php_open_tag(code: str) -> str:
    return code if code.lstrip().startswith("<?") else "<?php\n" + code


LANGUAGES: tuple[LanguageSpec, ...] = (
    LanguageSpec("python", "main.py", (), SelfTest("s, n = input().split()\nprint(s, n)"), runner="python-fork",
                 aliases=("python3", "py", "py3"), out_of_memory_line=PYTHON_OUT_OF_MEMORY,
                 libraries=LibraryProbe(PYTHON_LIBRARIES, PROBE_PYTHON),
                 description="CPython, a fork of a warm interpreter per case"),
    LanguageSpec("pypy", "main.py", ("/usr/bin/pypy3", "{program}"), SelfTest("s, n = input().split()\nprint(s, n)"),
                 aliases=("pypy3",), requires=("/usr/bin/pypy3",), out_of_memory_line=PYTHON_OUT_OF_MEMORY,
                 description="PyPy 3"),
    _cpp("cpp", "c++17", ("c++", "cpp17", "c++17")),
    _cpp("cpp11", "c++11", ("c++11",)),
    _cpp("cpp14", "c++14", ("c++14",)),
    _cpp("cpp20", "c++20", ("c++20",)),
    LanguageSpec("c", "main.c", ("{program}",), SelfTest(ECHO_C),
                 compile=("/usr/bin/gcc", "-std=gnu11", "-O2", "-pipe", "-static", "-s", "-o", "{workdir}/main",
                          "{source}", "-lm"),
                 artifact="main", requires=("/usr/bin/gcc",),
                 split_asserts=cpp_split.harness("c", "/usr/bin/gcc", "-std=gnu11", (), "main.c"),
                 description="gcc -O2, static"),
    # -ea in every run: an `assert` in a Java program is its author's own check, and a run that breaks it
    # is wrong (SandboxFusion runs Java with -ea too, and its users' tests are such asserts); /run_code and
    # judged cases run the same command, so a program means the same thing in both.
    LanguageSpec("java", "Main.java", ("/usr/bin/java", "-ea", "-XX:+UseSerialGC", "-Xss64m",
                                       "-XX:MaxRAMPercentage=75", "-XX:TieredStopAtLevel=1",
                                       "-cp", "{program}:" + JAVA_LIBRARIES, "Main"),
                 SelfTest(ECHO_JAVA),
                 compile=("/bin/sh", "-c", "cd {workdir} && /usr/bin/javac -encoding UTF-8 -J-XX:+UseSerialGC"
                          f" -J-XX:TieredStopAtLevel=1 -cp {JAVA_LIBRARIES} -d classes Main.java"
                          " && /usr/bin/jar cf main.jar -C classes ."),
                 artifact="main.jar", requires=("/usr/bin/javac", "/usr/bin/jar"), prepare=_java_entry,
                 split_asserts=java_split.split_asserts,
                 memory_floor_mb=256, aliases=("java17",),
                 out_of_memory_line=JAVA_OUT_OF_MEMORY, needs_memory_cgroup=True,
                 libraries=LibraryProbe(("javatuples",), PROBE_JAVA),
                 description="OpenJDK, javac once, a jar per submission"),
    LanguageSpec("javascript", "main.js", ("/usr/bin/node", "--preserve-symlinks-main", "{program}"),
                 SelfTest("const [s, n] = require('fs').readFileSync(0, 'utf8').trim().split(/\\s+/);\n"
                          "console.log(s + ' ' + n);"),
                 requires=("/usr/bin/node",), split_asserts=js_split.javascript,
                 env={"NODE_PATH": js_split.NODE_LIBRARIES}, libraries=LibraryProbe(("lodash",), PROBE_LODASH),
                 memory_floor_mb=128,
                 needs_memory_cgroup=True,
                 aliases=("js", "nodejs", "node"), description="Node.js"),
    LanguageSpec("typescript", "main.ts", ("/usr/bin/node", "--preserve-symlinks-main", "{program}"),
                 SelfTest("const [s, n]: string[] = require('fs').readFileSync(0, 'utf8').trim().split(/\\s+/);\n"
                          "console.log(s + ' ' + n);"),
                 compile=("/usr/bin/node", "-e", TRANSPILE_TS),
                 artifact="main.js", requires=("/usr/bin/node", "/usr/share/nodejs/typescript"),
                 env={"NODE_PATH": js_split.NODE_LIBRARIES}, split_asserts=js_split.typescript,
                 libraries=LibraryProbe(("lodash",), "import _ from 'lodash';\n" + PROBE_LODASH.replace(
                     "require('lodash')", "_")),
                 memory_floor_mb=128,
                 needs_memory_cgroup=True,
                 aliases=("ts",), description="TypeScript, transpiled once (no type check), run by Node.js"),
    LanguageSpec("go", "main.go", ("{program}",),
                 SelfTest("package main\nimport \"fmt\"\nfunc main() { var s string; var n int;"
                          " fmt.Scan(&s, &n); fmt.Println(s, n) }"),
                 compile=("/usr/bin/go", "build", "-o", "{workdir}/main", "{source}"), artifact="main",
                 requires=("/usr/bin/go",), needs_memory_cgroup=True, split_asserts=go_split.split_asserts,
                 env={"GOCACHE": "/tmp/.gocache", "GOPATH": "/tmp/.gopath", "GO111MODULE": "off", "CGO_ENABLED": "0"},
                 description="Go"),
    LanguageSpec("rust", "main.rs", ("{program}",),
                 SelfTest(ECHO_RUST),
                 compile=("/usr/bin/rustc", "--edition", "2021", "-O", "-C", "strip=symbols", "-o", "{workdir}/main",
                          "{source}"),
                 artifact="main", requires=("/usr/bin/rustc",), split_asserts=rust_split.split_asserts,
                 description="rustc -O"),
    LanguageSpec("bash", "main.sh", ("/bin/bash", "{program}"), SelfTest("read s n\necho \"$s $n\""),
                 requires=("/bin/bash",), aliases=("sh",), description="GNU bash"),
    LanguageSpec("php", "main.php", ("/usr/bin/php", "{program}"),
                 SelfTest("<?php\n[$s, $n] = explode(' ', trim(fgets(STDIN)));\necho \"$s $n\\n\";"),
                 requires=("/usr/bin/php",), prepare=_php_open_tag,
                 description="PHP CLI"),
    LanguageSpec("ruby", "main.rb", ("/usr/bin/ruby", "{program}"), SelfTest("s, n = gets.split\nputs \"#{s} #{n}\""),
                 requires=("/usr/bin/ruby",), description="Ruby"),
    LanguageSpec("lua", "main.lua", ("/usr/bin/lua5.4", "{program}"),
                 SelfTest("local s, n = io.read('l'):match('(%S+)%s+(%S+)')\nprint(s .. ' ' .. n)"),
                 requires=("/usr/bin/lua5.4",), libraries=LibraryProbe(("luaunit",), PROBE_LUA),
                 description="Lua 5.4"),
    LanguageSpec("perl", "main.pl", ("/usr/bin/perl", "{program}"),
                 SelfTest("my ($s, $n) = split ' ', <STDIN>;\nprint \"$s $n\\n\";"),
                 requires=("/usr/bin/perl",), libraries=LibraryProbe(("Test::Deep", "Data::Compare"), PROBE_PERL),
                 description="Perl 5"),
    LanguageSpec("r", "main.R", ("/usr/bin/Rscript", "{program}"),
                 SelfTest("x <- scan(file('stdin'), what = character(), quiet = TRUE)\ncat(x[1], x[2], '\\n')"),
                 requires=("/usr/bin/Rscript",), aliases=("R",), memory_floor_mb=128, description="R"),
    LanguageSpec("csharp", "main.cs", ("/usr/bin/mono", "{program}"),
                 SelfTest("using System;\nclass P { static void Main() { var p = Console.ReadLine().Split(' ');"
                          " Console.WriteLine(p[0] + \" \" + p[1]); } }"),
                 compile=("/usr/bin/mcs", "-optimize+", "-out:{workdir}/main.exe", "{source}"), artifact="main.exe",
                 requires=("/usr/bin/mcs", "/usr/bin/mono"), aliases=("cs", "c#"), memory_floor_mb=128,
                 description="C# on Mono"),
)
