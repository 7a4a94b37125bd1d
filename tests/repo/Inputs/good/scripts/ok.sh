#!/usr/bin/env bash
# Temporary files come from mktemp, never from a fixed folder.
tmp=$(mktemp -d)
cp "$(dirname "$0")/../docs/ok.md" "$tmp/"
rm -rf "$tmp"
