#!/usr/bin/env python3
"""A bisect test for the demo: reads a GitHub Search state as JSON on standard input and exits 0 (good)
when no repository appears twice, 1 (bad) otherwise. Usage:
    reactorlog bisect demo.reactorlog --stream search --run 'python3 Tools/scripts/unique-repos.py'
"""
import json
import sys

repos = json.load(sys.stdin).get("repos", [])
sys.exit(0 if len(set(repos)) == len(repos) else 1)
