#!/usr/bin/env python3
"""Minimal Terraform security scanner.

Example of what it flags:

    provider "aws" {
      access_key = "AKIAIOSFODNN7EXAMPLE"
      secret_key = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
    }
"""
import pathlib, re, sys

RULES = [
    ("CRITICAL", "hard-coded AWS access key", re.compile(r'(?:access_key|aws_access_key_id)\s*=\s*"(AKIA[A-Z0-9]{16})"')),
    ("CRITICAL", "hard-coded secret", re.compile(r'secret_key\s*=\s*"[^"$]{20,}"')),
    ("HIGH", "security group open to the world", re.compile(r'cidr_blocks\s*=\s*\[\s*"0\.0\.0\.0/0"')),
    ("HIGH", "public S3 ACL", re.compile(r'acl\s*=\s*"public-read(-write)?"')),
    ("MEDIUM", "unencrypted EBS volume", re.compile(r'encrypted\s*=\s*false')),
]

root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")
for tf in root.rglob("*.tf"):
    for n, line in enumerate(tf.read_text().splitlines(), 1):
        for sev, msg, rx in RULES:
            if rx.search(line):
                print(f"{sev:8} {tf}:{n} {msg}")
