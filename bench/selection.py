#!/usr/bin/env python3
"""Selection by evidence on real fixes: the work of bench/selection.sh (see its header).

    selection.py MIRROR WORK CASES SEED
    selection.py --report ROWS.json

MIRROR is a clone of pallets/click (bare or not) with its history. Instances are its newest
non-merge commits that modify Python files under src/click/ (the fix) and existing files under
tests/ (the test patch), and nothing else but documentation; an instance is kept when some test
of the test patch fails at the parent and passes with the fix (pytest decides, on the test
modules the test patch touches). Each gets four candidate answers derived from real code, a
ground truth per candidate, and two runs of papayu: the check alone, and the test patch as the
reproduction. `git papayu` must be on PATH. ROWS=FILE keeps each instance's row (candidates,
ground truth, picks, seconds) as JSON.
"""

import ast
import difflib
import io
import json
import os
import random
import re
import shutil
import subprocess
import sys
import time
import tokenize

if sys.argv[1] != "--report":
    MIRROR, WORK, CASES, SEED = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
SCAN = 400  # commits looked at, newest first
MODES = (os.environ.get("MODES") or "check repro check-novote repro-novote").split()
DOC = re.compile(r"(^docs/|\.(md|rst|txt)$|^CHANGES)")


def git(*args, cwd=None, ok=(0,), data=None):
    run = subprocess.run(["git", *args], cwd=cwd, input=data, capture_output=True)
    if run.returncode not in ok:
        raise RuntimeError("git %s: %s" % (" ".join(args), run.stderr.decode(errors="replace")))
    return run.stdout.decode(errors="replace")


def mirror(*args, ok=(0,)):
    return git("--git-dir", mirror_dir(), *args, ok=ok)


def show(commit, path):
    return mirror("show", "%s:%s" % (commit, path))


def changed(commit):
    """(status, path) of each file the commit changes against its parent."""
    out = mirror("diff-tree", "--no-commit-id", "-r", "--name-status", "--no-renames", commit + "^", commit)
    return [tuple(line.split("\t", 1)) for line in out.splitlines() if line]


def extract(commit, dest):
    os.makedirs(dest)
    archive = subprocess.run(["git", "--git-dir", mirror_dir(), "archive", commit], capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", dest], input=archive, check=True)


def mirror_dir():
    """The git directory: MIRROR itself when bare, else its .git."""
    return MIRROR if os.path.isfile(os.path.join(MIRROR, "HEAD")) else os.path.join(MIRROR, ".git")


def pytest(tree, modules):
    """{test id: passed} from `pytest -rA` on MODULES in TREE, and the seconds it took."""
    env = dict(os.environ, PYTHONPATH="src", PYTHONDONTWRITEBYTECODE="1")
    started = time.time()
    run = subprocess.run([sys.executable, "-m", "pytest", "-rA", "-q", "-p", "no:cacheprovider", *modules],
                         cwd=tree, env=env, capture_output=True, text=True, timeout=600)
    results = {}
    for line in run.stdout.splitlines():
        m = re.match(r"(PASSED|FAILED|ERROR|XFAIL|XPASS) (\S+)", line)
        if m:
            results[m.group(2)] = m.group(1) in ("PASSED", "XFAIL", "XPASS")
    return results, time.time() - started


def overlay(tree, files):
    for path, content in files.items():
        full = os.path.join(tree, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w") as f:
            f.write(content)


def run_tests(parent, files, modules, scratch):
    if os.path.exists(scratch):
        shutil.rmtree(scratch)
    shutil.copytree(parent, scratch)
    overlay(scratch, files)
    results, seconds = pytest(scratch, modules)
    shutil.rmtree(scratch)
    return results, seconds


# Candidates --------------------------------------------------------------------------------

def tokens(text):
    """The file's tokens without comments and layout: what papayu's votes compare."""
    skip = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENCODING}
    return [t.string for t in tokenize.tokenize(io.BytesIO(text.encode()).readline) if t.type not in skip]


def parses(text):
    try:
        ast.parse(text)
        return True
    except SyntaxError:
        return False


def variant(old, new):
    """NEW written differently: a comment line above its first changed line, and that line's
    trailing spaces; the same tokens."""
    lines = new.splitlines(True)
    matcher = difflib.SequenceMatcher(None, old.splitlines(True), lines, autojunk=False)
    firsts = [j1 for tag, _, _, j1, j2 in matcher.get_opcodes() if tag in ("replace", "insert")]
    for at in firsts + list(range(len(lines))):
        if at >= len(lines) or not lines[at].strip():
            continue
        indent = lines[at][: len(lines[at]) - len(lines[at].lstrip())]
        text = "".join(lines[:at] + [indent + "# the change\n"] + lines[at:])
        try:
            if parses(text) and tokens(text) == tokens(new):
                return text
        except (tokenize.TokenError, IndentationError):
            pass
    return None


def without_one_hunk(old, new):
    """NEW with its last change that leaves valid Python left out, when it has several."""
    a, b = old.splitlines(True), new.splitlines(True)
    ops = difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
    changes = [k for k, op in enumerate(ops) if op[0] != "equal"]
    if len(changes) < 2:
        return None
    for drop in reversed(changes):
        out = []
        for k, (tag, i1, i2, j1, j2) in enumerate(ops):
            out += a[i1:i2] if (tag == "equal" or k == drop) else b[j1:j2]
        text = "".join(out)
        if text != new and text != old and parses(text):
            return text
    return None


def partial(fix, parent_files):
    """The fix with one hunk left out, in its first file that has several."""
    for path, new in fix.items():
        text = without_one_hunk(parent_files[path], new)
        if text is not None:
            return dict(fix, **{path: text})
    return None


def wrong(commit, parent, fix, parent_files, scratch):
    """Another commit's change to a file this fix changes, applied to the parent's file (the
    fix left out); else another commit's change to any file under src/click."""
    history = mirror("log", "--format=%H", "--no-merges", "-n", "300", "--", *fix).split()
    later = mirror("log", "--format=%H", "--no-merges", "-n", "300", parent + "..", "--", "src/click").split()
    for others, paths in ((history + later, list(fix)), (later + history, None)):
        for other in others:
            if other == commit:
                continue
            for path in paths or [p for s, p in changed(other) if s == "M" and p.startswith("src/click/")]:
                diff = mirror("diff", other + "^", other, "--", path)
                if not diff.strip():
                    continue
                base = parent_files.get(path)
                if base is None:
                    try:
                        base = show(parent, path)
                    except RuntimeError:
                        continue
                if os.path.exists(scratch):
                    shutil.rmtree(scratch)
                overlay(scratch, {path: base})
                run = subprocess.run(["git", "apply", "--include=" + path, "-"], cwd=scratch, input=diff.encode(),
                                     capture_output=True)
                if run.returncode != 0:
                    continue
                text = open(os.path.join(scratch, path)).read()
                if text != base and parses(text) and text != fix.get(path):
                    out = {p: parent_files[p] for p in fix if p != path}
                    out[path] = text
                    # Keep the other files of the fix at the parent: the answer leaves them alone.
                    return {p: c for p, c in out.items() if c != parent_files.get(p)} or None, other
    return None, None


def answer(files, summary):
    return json.dumps({"summary": summary, "actions": [
        {"kind": "UPDATE_FILE", "path": p, "content": c} for p, c in sorted(files.items())]})


# Instances ---------------------------------------------------------------------------------

def instances():
    commits = mirror("log", "--format=%H %P", "--no-merges", "-n", str(SCAN), "--", "src/click", "tests").splitlines()
    found = []
    for line in commits:
        if len(found) >= CASES:
            break
        parts = line.split()
        if len(parts) != 2:
            continue
        commit, parent = parts
        files = changed(commit)
        src = [p for s, p in files if p.startswith("src/click/") and p.endswith(".py")]
        tests = [p for s, p in files if p.startswith("tests/") and p.endswith(".py")]
        other = [p for s, p in files if p not in src and p not in tests and not DOC.search(p)]
        if not src or not tests or other or any(s != "M" for s, p in files if p in src + tests) or len(src) > 3:
            continue
        inst = verify(commit, parent, src, tests)
        if inst:
            found.append(inst)
            print("  instance %d: %s %s (%d fail-to-pass, %d pass-to-pass)" % (
                len(found), commit[:10], inst["goal"][:60], len(inst["f2p"]), len(inst["p2p"])), file=sys.stderr)
    return found


def verify(commit, parent, src, tests):
    d = os.path.join(WORK, "inst-" + commit[:10])
    parent_tree = os.path.join(d, "parent")
    extract(parent, parent_tree)
    test_patch = {p: show(commit, p) for p in tests}
    fix = {p: show(commit, p) for p in src}
    parent_files = {p: show(parent, p) for p in src}
    before, _ = run_tests(parent_tree, test_patch, tests, os.path.join(d, "scratch"))
    after, _ = run_tests(parent_tree, dict(test_patch, **fix), tests, os.path.join(d, "scratch"))
    f2p = sorted(t for t, ok in after.items() if ok and before.get(t) is not True)
    p2p = sorted(t for t, ok in after.items() if ok and before.get(t) is True)
    if not f2p or not before:
        shutil.rmtree(d)
        return None
    goal = mirror("log", "-1", "--format=%s", commit).strip()
    return {"commit": commit, "parent": parent, "goal": goal, "src": src, "tests": tests, "dir": d,
            "f2p": f2p, "p2p": p2p, "fix": fix, "parent_files": parent_files, "test_patch": test_patch}


def candidates(inst, index):
    d, fix, parent_files = inst["dir"], inst["fix"], inst["parent_files"]
    out = [("real", fix, "the fix")]
    for path, new in fix.items():
        text = variant(parent_files[path], new)
        if text is not None:
            out.append(("variant", dict(fix, **{path: text}), "the fix, with a comment"))
            break
    part = partial(fix, parent_files)
    if part:
        out.append(("partial", part, "part of the fix"))
    bad, source = wrong(inst["commit"], inst["parent"], fix, parent_files, os.path.join(d, "scratch"))
    if bad:
        out.append(("wrong", bad, "another change (%s)" % source[:10]))
    random.Random(SEED * 1000 + index).shuffle(out)
    return out


def resolves(inst, files):
    results, seconds = run_tests(inst["dir"] + "/parent", dict(inst["test_patch"], **files), inst["tests"],
                                 inst["dir"] + "/scratch")
    ok = all(results.get(t) is True for t in inst["f2p"] + inst["p2p"])
    return ok, seconds


# papayu ------------------------------------------------------------------------------------

def papayu(repo, *args, ok=(0,)):
    started = time.time()
    run = subprocess.run(["git", "-C", repo, "papayu", *args], capture_output=True, text=True)
    if run.returncode not in ok:
        raise RuntimeError("git papayu %s: exit %d\n%s\n%s" % (" ".join(args[:3]), run.returncode, run.stdout[-2000:], run.stderr[-3000:]))
    return run, time.time() - started


def make_repo(inst, name):
    repo = os.path.join(inst["dir"], name)
    shutil.copytree(inst["dir"] + "/parent", repo)
    git("init", "-q", "-b", "main", cwd=repo)
    git("add", "-A", cwd=repo)
    git("commit", "-qm", "parent of " + inst["commit"][:10], cwd=repo)
    return repo


def check_command(inst):
    return "PYTHONPATH=src python3 -m pytest -rA -q -p no:cacheprovider " + " ".join(inst["tests"])


def select(inst, cands, mode):
    """Which candidate `pick` merges after plan and apply --all (mode "check": the check alone;
    "repro": the test patch first, as the reproduction). Returns (kind or None, seconds of apply,
    seconds of plan, the reproduction's outcome)."""
    repo = make_repo(inst, mode)
    files = []
    for k, (kind, cfiles, summary) in enumerate(cands):
        path = os.path.join(inst["dir"], "%s-%d-%s.json" % (mode, k, kind))
        open(path, "w").write(answer(cfiles, summary))
        files += ["--response", path]
    args = ["plan", inst["goal"], "--protocol", "1", "--json"]
    reproduces = None
    if mode == "repro":
        repro = os.path.join(inst["dir"], "testpatch.json")
        open(repro, "w").write(answer(inst["test_patch"], "the test patch"))
        git("config", "papayu.checkCommand", check_command(inst), cwd=repo)
        args += ["--repro-response", repro]
    planned, plan_s = papayu(repo, *args, *files)
    doc = json.loads(planned.stdout)
    if mode == "repro":
        reproduces = (doc.get("repro") or {}).get("reproduces")
    ids = [p["plan"]["id"] for p in doc["plans"]]
    _, apply_s = papayu(repo, "apply", "--all", "--check", check_command(inst), "--json", ok=(0, 1))
    picked, _ = papayu(repo, "pick", "--json", ok=(0, 1))
    chosen = None
    try:
        chosen = json.loads(picked.stdout).get("plan")
    except ValueError:
        pass
    kind = cands[ids.index(chosen)][0] if chosen in ids else None
    shutil.rmtree(repo)
    return kind, apply_s, plan_s, reproduces


def main():
    if sys.argv[1] == "--report":
        report(json.load(open(sys.argv[2])))
        return
    os.makedirs(WORK, exist_ok=True)
    print("finding instances (newest %d commits of %s)" % (SCAN, MIRROR), file=sys.stderr)
    found = instances()
    rows = []
    for index, inst in enumerate(found):
        cands = candidates(inst, index)
        truth, truth_s = [], 0.0
        for kind, files, _ in cands:
            ok, s = resolves(inst, files)
            truth.append(ok)
            truth_s += s
        row = {"commit": inst["commit"][:10], "goal": inst["goal"], "kinds": [c[0] for c in cands],
               "resolves": truth, "truth_seconds": truth_s}
        for mode in MODES:
            # Without the variant, the real fix has no second vote: evidence alone decides.
            these = [c for c in cands if c[0] != "variant"] if mode.endswith("-novote") else cands
            kind, apply_s, plan_s, reproduces = select(inst, these, mode.split("-")[0])
            row[mode] = [kind, apply_s, plan_s]
            if reproduces is not None:
                row["reproduces"] = reproduces
        rows.append(row)
        print("  %s %-40s %-30s %s" % (
            row["commit"], inst["goal"][:40],
            " ".join("%s%s" % (k, "+" if r else "-") for k, r in zip(row["kinds"], truth)),
            " ".join("%s->%s" % (m, row[m][0]) for m in MODES)), file=sys.stderr)
        json.dump(rows, open(os.environ.get("ROWS") or os.path.join(WORK, "rows.json"), "w"), indent=1)
    report(rows)


def report(rows):
    n = len(rows)
    if not n:
        print("no instance found")
        return
    modes = [m for m in ("check", "repro", "check-novote", "repro-novote") if m in rows[0]]
    med = lambda xs: sorted(xs)[len(xs) // 2]
    cands = sum(len(r["kinds"]) for r in rows)
    print()
    print("%d instances (pallets/click fixes), %d candidates (%.1f each), %d of them resolve" % (
        n, cands, cands / n, sum(sum(r["resolves"]) for r in rows)))
    for votes in (True, False):
        def truth(r):
            return [(k, ok) for k, ok in zip(r["kinds"], r["resolves"]) if votes or k != "variant"]
        picked = lambda r, m: dict(truth(r)).get(r[m][0], False)
        first = sum(truth(r)[0][1] for r in rows)
        rand = sum(sum(ok for _, ok in truth(r)) / len(truth(r)) for r in rows)
        oracle = sum(any(ok for _, ok in truth(r)) for r in rows)
        suffix = "" if votes else "-novote"
        print()
        print("  %s" % ("with the variant (the real fix has two votes)" if votes else
                        "without the variant (real, partial, wrong: no votes)"))
        lines = [("first answer", first), ("random answer (expected)", rand)]
        for m, name in (("check", "papayu pick, check only"), ("repro", "papayu pick, test patch as reproduction")):
            if m + suffix in modes:
                lines.append((name, sum(picked(r, m + suffix) for r in rows)))
        lines.append(("oracle (some candidate resolves)", oracle))
        for name, value in lines:
            print("    %-42s %5.1f / %d  (%.0f%%)" % (name, value, n, 100 * value / n))
        for m in ("check", "repro"):
            if m + suffix in modes:
                print("    picked, %-7s %s" % (m + ":", ", ".join(
                    "%s %d" % (k or "nothing", sum(1 for r in rows if r[m + suffix][0] == k))
                    for k in ("real", "variant", "partial", "wrong", None))))
                print("    seconds per instance (median): plan %.1f, apply --all %.1f" % (
                    med([r[m + suffix][2] for r in rows]), med([r[m + suffix][1] for r in rows])))
    print()
    if any("reproduces" in r for r in rows):
        print("  the test patch reproduces at the base: %d of %d" % (sum(1 for r in rows if r.get("reproduces")), n))
    print("  one run of the test modules outside papayu (median): %.1f s" % med(
        [r["truth_seconds"] / len(r["kinds"]) for r in rows]))


if __name__ == "__main__":
    main()
