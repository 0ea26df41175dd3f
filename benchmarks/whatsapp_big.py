"""Write a large synthetic WhatsApp export (Android `WhatsApp Chat with NAME.txt`) for ingest timing.

Two people chat over `--days` days (default two years): on most days one to four talks at random
hours (morning to late night), each a burst of messages a few seconds to a few minutes apart with
now and then a slow reply, until `--messages` messages are written. Texts are drawn from a small
everyday vocabulary, some multi-line. Seeded: the same arguments write the same file.

    python benchmarks/whatsapp_big.py /tmp/big --messages 30000
    /usr/bin/time -v refind ingest "/tmp/big/WhatsApp Chat with Emi.txt"
"""

from __future__ import annotations

import argparse
import random
import sys
from datetime import datetime, timedelta
from pathlib import Path

WORDS = (
    "coffee lunch dinner train bus bike run park rain sun work meeting boss project deadline movie book "
    "concert ticket flight hotel beach mountain trip plan weekend sister brother mum dad dog cat vet "
    "garden tomatoes bread sourdough recipe cake birthday party gift rent flat landlord kitchen paint "
    "doctor dentist gym yoga football match score game phone laptop bill money bank tax holiday Lisbon "
    "Porto Berlin Paris market shop sale shoes jacket wedding baby school exam course friend neighbour"
).split()
OPENERS = ("Hey", "Morning!", "Did you see", "So", "Btw", "Ok", "Haha", "Yes", "No way", "Guess what")


def sentence(rng: random.Random) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(3, 14))]
    return f"{rng.choice(OPENERS)} {' '.join(words)}{rng.choice('.!?')}"


def write(folder: Path, messages: int, days: int, seed: int) -> Path:
    rng = random.Random(seed)
    people = ("Sam", "Emi")
    start = datetime(2023, 1, 1)
    per_day = max(1.4 * messages / days, 1.0)  # some days are quiet: aim above the mean
    lines = [
        f"{start:%d/%m/%Y}, 08:00 - Messages and calls are end-to-end encrypted. No one outside of this "
        "chat, not even WhatsApp, can read or listen to them. Tap to learn more."
    ]
    written = 0
    for d in range(days):
        if written >= messages:
            break
        budget = int(rng.expovariate(1 / per_day)) if rng.random() < 0.85 else 0
        talks = sorted(rng.sample(range(7 * 60, 24 * 60), k=rng.randint(1, 4)))
        for minute in talks:
            t = start + timedelta(days=d, minutes=minute)
            for _ in range(max(budget // len(talks), 1)):
                if written >= messages:
                    break
                t += timedelta(
                    seconds=rng.randint(5, 240) if rng.random() > 0.05 else rng.randint(1800, 7200)
                )
                text = sentence(rng)
                if rng.random() < 0.05:
                    text += "\n" + sentence(rng)
                lines.append(f"{t:%d/%m/%Y, %H:%M} - {rng.choice(people)}: {text}")
                written += 1
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "WhatsApp Chat with Emi.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folder", type=Path)
    ap.add_argument("--messages", type=int, default=30000)
    ap.add_argument("--days", type=int, default=730)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    path = write(args.folder, args.messages, args.days, args.seed)
    n = sum(1 for line in path.read_text(encoding="utf-8").splitlines() if " - " in line[:20])
    print(f"{path}: {n - 1} messages, {path.stat().st_size / 1e6:.1f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
