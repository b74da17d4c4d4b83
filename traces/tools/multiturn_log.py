#!/usr/bin/env python3
"""Write a multi-turn request log (JSONL with prefix hashes) that `qsacheck simulate --requests` and
`qsacheck check --requests` replay: conversations of several turns, each turn's prompt the whole
previous context (the system prompt, every earlier message and every earlier output) plus a new
user message, arriving a think time after the previous turn's answer could have been read.
docs/workloads.md "A multi-turn log generator" documents it; it needs only Python's standard library.

    python3 traces/tools/multiturn_log.py --conversations 200 --seed 1 > chat.jsonl
    qsacheck simulate --requests chat.jsonl --hash-block 64 chat.scenario

Hashes follow the token chain as a serving system's prefix cache does: hash_ids[i] names the whole
prefix up to the end of hash block i, so two requests share a hash exactly where their prompts are
equal up to that block; a partial last block gets a hash of its own.
"""
import argparse
import json
import random
import sys


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--conversations", type=int, default=100)
    p.add_argument("--turns", default="2:6", help="turns per conversation, MIN:MAX (uniform)")
    p.add_argument("--system-prompts", type=int, default=4, help="distinct shared system prompts")
    p.add_argument("--system-tokens", type=int, default=1024, help="tokens of each system prompt")
    p.add_argument("--user-tokens", default="32:512", help="tokens of a user message, MIN:MAX")
    p.add_argument("--output-tokens", default="16:256", help="tokens of an answer, MIN:MAX")
    p.add_argument("--think-ms", default="2000:30000", help="time from one turn's arrival to the next, MIN:MAX ms")
    p.add_argument("--rate", type=float, default=2.0, help="new conversations per second (Poisson)")
    p.add_argument("--hash-block", type=int, default=64, help="prompt tokens per hash (pass the same to qsacheck)")
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args()
    rng = random.Random(a.seed)
    span = lambda text: tuple(int(x) for x in text.split(":"))
    turns, user, output, think = span(a.turns), span(a.user_tokens), span(a.output_tokens), span(a.think_ms)

    chain_ids = {}  # (parent id, block content) -> hash id: equal prefixes get equal ids

    def hashes(segments, length):
        # segments: (owner, start, end) runs of tokens; a block's content is the runs it covers.
        ids, parent = [], 0
        for start in range(0, length, a.hash_block):
            end = min(start + a.hash_block, length)
            content = tuple((o, max(s, start), min(e, end)) for o, s, e in segments if s < end and e > start)
            key = (parent, content, end - start)
            parent = chain_ids.setdefault(key, len(chain_ids) + 1)
            ids.append(parent)
        return ids

    requests, t = [], 0.0
    for c in range(a.conversations):
        t += rng.expovariate(a.rate) * 1000.0
        system = rng.randrange(a.system_prompts)
        segments = [(("system", system), 0, a.system_tokens)]
        length, arrival = a.system_tokens, t
        for k in range(rng.randint(*turns)):
            message = rng.randint(*user)
            segments.append((("user", c, k), length, length + message))
            length += message
            out = rng.randint(*output)
            requests.append({"timestamp": int(arrival), "input_length": length, "output_length": out,
                             "hash_ids": hashes(segments, length)})
            # The answer joins the context: the next turn's prompt holds it (its last token, sampled
            # but never fed back, included: the chat template closes the turn after it).
            segments.append((("answer", c, k), length, length + out))
            length += out
            arrival += rng.randint(*think)
    requests.sort(key=lambda r: r["timestamp"])
    for r in requests:
        sys.stdout.write(json.dumps(r) + "\n")


if __name__ == "__main__":
    main()
