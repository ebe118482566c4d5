#!/usr/bin/env python3
"""Damages copies of a log and runs every reading command of `reactorlog` on each, as a user with a log from the
field would: reports a crash (a signal, an exit code the inspector does not give, a runtime failure's text), a hang
(30 s), an answer given with exit 0 that differs from the sound log's, and a failure of more than one line.

    Tools/scripts/damage-sweep.py REACTORLOG LOG MODE SEED TRIALS

REACTORLOG is the inspector binary (copy it first: a rebuild under a running sweep makes every run fail); LOG a demo
log (`reactorlog demo`, whose three streams the commands name), or, when its name contains `big`, a Counter log
(`reactorlog demo --actions 1500`), or, when it contains `many`, a log of 300 streams (`reactorlog-bench record LOG
--actions 20000 --streams 300`, whose reducer the inspector does not know), or, when it contains `trim`, a demo log
trimmed before #30 (`reactorlog trim LOG --before 30`: its entries #28…#73). MODE is how each copy is damaged: `run`
(1 to 48 random bytes at a random place), `flip` (one bit), `sector` (a random 512-byte sector zeroed), `trunc` (the
file cut short), `mix` (one to three of those), or `allsector` (trial N zeroes sector N: TRIALS is the file's size /
512). Prints one line a finding and a last line `done ... bad=N`; exits 1 when N > 0. The runs are in docs/TRUST.md.
"""
import os
import random
import shutil
import subprocess
import sys
import tempfile

INSPECTOR, LOG, MODE, SEED, TRIALS = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
UNIQUE_REPOS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "unique-repos.py")
EXIT_CODES = {0, 1, 2, 3, 4, 5, 6, 7, 9}
COMPARED = {"log", "show", "state", "diff", "blame", "tail", "what-if"}
FAILURES = ("Fatal error", "Stack dump", "Segmentation", "Illegal instruction", "Swift runtime failure", "Program crashed")


def commands(log, out):
    if "many" in os.path.basename(LOG):
        return [
            ["info", log], ["log", log], ["log", log, "--stream", "search-7"], ["log", log, "--json", "--from", "30000"],
            ["show", log, "30000"], ["show", log, "65000", "--json"], ["tail", log], ["tail", log, "--stream", "search-299"],
            ["state", log, "--stream", "search-149", "--at", "65450"], ["verify", log],
            ["export", log, "--out", out + "/x.jsonl", "--force"], ["pack", log, "--out", out + "/p.pack", "--force"],
            ["timeline", log, "--stream", "search-9", "--out", out + "/t.html", "--force"],
            ["compact", log, out + "/c.reactorlog"],
        ]
    if "big" in os.path.basename(LOG):
        return [
            ["info", log], ["log", log], ["log", log, "--json", "--from", "3000"], ["show", log, "2000"],
            ["show", log, "5999", "--json"], ["state", log, "--stream", "counter", "--at", "1500"],
            ["state", log, "--stream", "counter", "--at", "5990"], ["diff", log, "100", "5000", "--stream", "counter"],
            ["blame", log, "value", "--stream", "counter"], ["tail", log], ["verify", log],
            ["export", log, "--out", out + "/x.jsonl", "--force"],
            ["timeline", log, "--stream", "counter", "--out", out + "/t.html", "--force"], ["divergence", log],
            ["what-if", log, "--stream", "counter", "--skip", "5"], ["pack", log, "--out", out + "/p.pack", "--force"],
            ["compact", log, out + "/c.reactorlog"],
        ]
    if "trim" in os.path.basename(LOG):
        return [
            ["info", log], ["log", log], ["log", log, "--json"], ["show", log, "29"], ["show", log, "60", "--json"],
            ["state", log, "--stream", "search", "--at", "31"], ["state", log, "--stream", "counter", "--at", "70"],
            ["state", log, "--stream", "todo", "--at", "50", "--path", "items"], ["diff", log, "28", "33", "--stream", "search"],
            ["blame", log, "items", "--stream", "todo"], ["blame", log, "repos", "--stream", "search", "--json"],
            ["tail", log], ["verify", log], ["export", log, "--out", out + "/x.jsonl", "--force"],
            ["timeline", log, "--stream", "todo", "--out", out + "/t.html", "--force"], ["divergence", log],
            ["what-if", log, "--stream", "counter", "--skip", "60"], ["pack", log, "--out", out + "/p.pack", "--force"],
            ["compact", log, out + "/c.reactorlog"],
        ]
    return [
        ["info", log], ["log", log], ["log", log, "--json"], ["show", log, "20"], ["show", log, "60", "--json"],
        ["state", log, "--stream", "search", "--at", "15"], ["state", log, "--stream", "counter", "--at", "10"],
        ["state", log, "--stream", "todo", "--at", "7", "--path", "items"], ["diff", log, "3", "18", "--stream", "search"],
        ["blame", log, "nextPage", "--stream", "search"], ["blame", log, "repos", "--stream", "search", "--json"],
        ["tail", log], ["verify", log], ["export", log, "--out", out + "/x.jsonl", "--force"],
        ["timeline", log, "--stream", "search", "--out", out + "/t.html", "--force"],
        ["bisect", log, "--stream", "search", "--run", "python3 " + UNIQUE_REPOS], ["divergence", log],
        ["what-if", log, "--stream", "search", "--skip", "5"], ["pack", log, "--out", out + "/p.pack", "--force"],
        ["compact", log, out + "/c.reactorlog"],
    ]


def run(command):
    return subprocess.run([INSPECTOR] + command, capture_output=True, text=True, timeout=30, errors="replace")


def damage(data, trial, rng):
    """Damages `data` in place as MODE says; returns what it did."""
    done = []
    kinds = ["run", "flip", "sector", "trunc"] if MODE == "mix" else [MODE]
    for _ in range(rng.choice([1, 1, 2, 3]) if MODE == "mix" else 1):
        kind = rng.choice(kinds)
        if kind == "run":
            at, count = rng.randrange(len(data)), rng.randint(1, 48)
            for i in range(at, min(len(data), at + count)):
                data[i] = rng.randrange(256)
            done.append(f"{count} random bytes at {at}")
        elif kind == "flip":
            at, bit = rng.randrange(len(data)), rng.randrange(8)
            data[at] ^= 1 << bit
            done.append(f"bit {bit} of byte {at}")
        elif kind in ("sector", "allsector"):
            at = trial * 512 if kind == "allsector" else rng.randrange(len(data) // 512) * 512
            data[at:at + 512] = bytes(512)
            done.append(f"sector at {at} zeroed")
        elif kind == "trunc":
            at = rng.randrange(len(data))
            del data[at:]
            done.append(f"cut at {at}")
    return done


def main():
    rng = random.Random(SEED)
    scratch = tempfile.mkdtemp(prefix="reactorlog-sweep-")
    sound = {}
    for command in commands(LOG, scratch):
        if command[0] in COMPARED:
            sound[command[0] + " " + " ".join(command[2:])] = run(command).stdout
    original = open(os.path.join(LOG, "data.mdb"), "rb").read()
    bad = 0
    for trial in range(TRIALS):
        copy, out = os.path.join(scratch, "log.reactorlog"), os.path.join(scratch, "out")
        shutil.rmtree(copy, ignore_errors=True)
        shutil.rmtree(out, ignore_errors=True)
        shutil.copytree(LOG, copy)
        os.makedirs(out)
        data = bytearray(original)
        done = damage(data, trial, rng)
        open(os.path.join(copy, "data.mdb"), "wb").write(data)
        for command in commands(copy, out):
            shutil.rmtree(out + "/c.reactorlog", ignore_errors=True)
            name = command[0] + " " + " ".join(command[2:])
            where = f"trial {trial} ({', '.join(done)}): {name}"
            try:
                result = run(command)
            except subprocess.TimeoutExpired:
                print(f"HANG {where}", flush=True)
                bad += 1
                continue
            lines = result.stderr.strip().splitlines()
            if result.returncode not in EXIT_CODES or any(text in result.stderr for text in FAILURES):
                print(f"CRASH exit {result.returncode} {where}: {lines[-3:]}", flush=True)
                bad += 1
            elif result.returncode == 0 and name in sound and result.stdout != sound[name]:
                print(f"WRONG exit 0 {where}", flush=True)
                bad += 1
            elif len(lines) > 1 and command[0] != "bisect":
                print(f"LONG exit {result.returncode} {where}: {lines[:3]}", flush=True)
    shutil.rmtree(scratch, ignore_errors=True)
    print(f"done seed={SEED} trials={TRIALS} bad={bad}")
    sys.exit(1 if bad else 0)


main()
