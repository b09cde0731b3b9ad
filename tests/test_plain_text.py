"""`one_line` and `multi_line`: what names and free text keep of the characters a player can send."""

from __future__ import annotations

import unicodedata

from bot.core.common import INVISIBLES, multi_line, one_line


def test_no_control_character_survives_in_a_name() -> None:
    controls = [chr(c) for c in range(0x110000) if unicodedata.category(chr(c)) == "Cc"]
    assert len(controls) == 65
    for char in controls:
        assert one_line(f"a{char}b") in ("ab", "a b"), hex(ord(char))


def test_line_breaks_and_tabs_part_words_in_a_name() -> None:
    assert one_line("Aria\tVell") == "Aria Vell"
    assert one_line("Orc\r\n\r\nchief\u2028x\u2029y\x85z") == "Orc chief x y z"


def test_invisible_format_characters_go_but_joiners_stay() -> None:
    for char in "\u00ad\u200b\u2060\ufeff\u202e\u2066\u200e\u061c\U000e0001":
        assert one_line(f"Ash{char}") == "Ash", hex(ord(char))
    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467"  # an emoji sequence needs its joiners
    scotland = "\U0001f3f4\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f"  # tags make a flag
    persian = "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645"  # a zero-width non-joiner is spelling here
    for text in (family, scotland, persian):
        assert one_line(text) == text and multi_line(text) == text


def test_free_text_keeps_its_lines_and_tabs() -> None:
    assert multi_line("one\r\ntwo\rthree\u2028four\n\nsix\tcol\x00\x1b[31m") == (
        "one\ntwo\nthree\nfour\n\nsix\tcol[31m"
    )
    assert not INVISIBLES.search(multi_line("".join(map(chr, range(0x100)))))
