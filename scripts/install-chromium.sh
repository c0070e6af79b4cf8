#!/usr/bin/env bash
# Installs Chromium from the system's package manager for the board's browser
# tests (package board, chromedp). Idempotent: an installed Chromium is kept.
# Never fails the suite: without Chromium those tests skip, saying so.
set -u
for b in chromium chromium-browser google-chrome google-chrome-stable headless-shell; do
  if command -v "$b" >/dev/null 2>&1; then
    echo "install-chromium: $b already installed"
    exit 0
  fi
done
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    sudo="sudo -n"
  else
    echo "install-chromium: not root and no sudo; the browser tests will skip"
    exit 0
  fi
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "install-chromium: no apt-get; install chromium yourself, the browser tests will skip"
  exit 0
fi
export DEBIAN_FRONTEND=noninteractive
if ! $sudo apt-get install -y -q chromium >/dev/null 2>&1; then
  $sudo apt-get update -q >/dev/null 2>&1
  $sudo apt-get install -y -q chromium >/dev/null 2>&1 || {
    echo "install-chromium: apt-get install chromium failed; the browser tests will skip"
    exit 0
  }
fi
echo "install-chromium: installed $(command -v chromium)"
