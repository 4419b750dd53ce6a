"""``mahj say``: speak a sentence or tile names with the profile's voice, or write them to a WAV file.

For setting up speech at a table (is it loud enough, is the rate right?) and for checking a voice offline.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import wave
from pathlib import Path

from assistant.console import report_error
from assistant.profile import ProfileError, load_profile
from assistant.speech import NO_AUDIO, audio_output, engine_available, synth_command, synthesize_wav
from engine.tiles import TileError, parse_tiles, spoken_name


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("say", help="speak text or tile names (or write a WAV) with the profile's voice")
    p.add_argument("words", nargs="+", help="what to say")
    p.add_argument("--tiles", action="store_true", help='read the words as tiles: "3B soap" -> "Three Bam, Soap"')
    p.add_argument("--wav", type=Path, help="write a WAV file instead of playing")
    p.add_argument("--profile", type=Path, help="profile TOML for engine, voice, rate, volume")
    p.add_argument("--engine", choices=("espeak-ng", "flite"), help="override the profile's engine")
    p.add_argument("--rate", type=int, help="words per minute")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        settings = load_profile(args.profile).speech
    except ProfileError as exc:
        return report_error(str(exc), json_mode=args.json)
    engine = args.engine or (settings.engine if settings.engine != "none" else "espeak-ng")
    rate = args.rate or settings.rate
    voice = settings.voice if engine == settings.engine else ("slt" if engine == "flite" else "en-us")
    text = " ".join(args.words)
    if args.tiles:
        try:
            text = ", ".join(spoken_name(c) for c in parse_tiles(text))
        except TileError as exc:
            return report_error(str(exc), json_mode=args.json)
    if not engine_available(engine):
        return report_error(f"{engine} is not installed (Debian: apt install {engine})", json_mode=args.json)
    if not args.wav and audio_output() is None:  # the synthesiser would exit 0 and nobody would hear a thing
        return report_error(NO_AUDIO, json_mode=args.json)
    out: dict = {"text": text, "engine": engine, "voice": voice, "rate": rate}
    try:
        if args.wav:
            synthesize_wav(text, args.wav, engine, voice, rate, settings.volume)
            with wave.open(str(args.wav)) as w:
                out |= {"wav": str(args.wav), "seconds": round(w.getnframes() / w.getframerate(), 2)}
        else:
            subprocess.run(synth_command(engine, text, voice, rate, settings.volume), check=True,
                           capture_output=True, timeout=60)
    except (subprocess.SubprocessError, OSError) as exc:
        return report_error(f"{engine} failed: {exc}", json_mode=args.json)
    print(json.dumps(out) if args.json else f"said: {text}" + (f" -> {args.wav} ({out['seconds']} s)"
                                                                 if args.wav else ""))
    return 0
