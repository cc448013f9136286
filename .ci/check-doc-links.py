#!/usr/bin/env python3
"""Checks every relative link (file and #anchor) in the repository's Markdown files: .ci/check-doc-links.py [ROOT]."""
import os, re, sys, subprocess
root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
files = subprocess.run(['git', '-C', root, 'ls-files', '*.md'], capture_output=True, text=True).stdout.split()
def anchors(path):
    out = set(); seen = {}
    in_code = False
    for line in open(path, encoding='utf-8'):
        if line.startswith('```'): in_code = not in_code; continue
        if in_code: continue
        m = re.match(r'^(#{1,6})\s+(.*?)\s*$', line)
        if not m: continue
        t = m.group(2).strip().lower()
        t = re.sub(r'[^\w\- ]', '', t)   # GitHub: drop punctuation except - and _
        t = t.replace(' ', '-')
        n = seen.get(t, 0); seen[t] = n + 1
        out.add(t if n == 0 else f'{t}-{n}')
    return out
bad = 0; count = 0
link = re.compile(r'(?<!\!)\[[^\]]*\]\(([^)\s]+)\)|!\[[^\]]*\]\(([^)\s]+)\)')
for f in files:
    path = os.path.join(root, f)
    text = open(path, encoding='utf-8').read()
    text = re.sub(r'```.*?```', '', text, flags=re.S)
    for m in link.finditer(text):
        target = m.group(1) or m.group(2)
        if re.match(r'^[a-z]+:', target): continue
        count += 1
        file_part, _, anchor = target.partition('#')
        dest = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) if file_part else path
        if not os.path.exists(dest):
            print(f'{f}: missing file {target}'); bad += 1; continue
        if anchor:
            if os.path.isdir(dest) or not dest.endswith('.md'):
                print(f'{f}: anchor on non-markdown {target}'); bad += 1; continue
            if anchor not in anchors(dest):
                print(f'{f}: missing anchor {target}'); bad += 1
print(f'{count} relative links checked, {bad} broken')
sys.exit(1 if bad else 0)
