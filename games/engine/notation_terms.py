"""The words of the move notation (:mod:`games.engine.notation`) in the four editions of the rulebook:
verbs and "castle" (``content.md`` §5). Data only; the names of components live in :mod:`.names`."""

from __future__ import annotations

#: The languages of the notation: the editions of the rulebook.
LANGS = ("en", "sv", "pl", "ko")

#: Verbs: canonical name -> language -> spellings, the first one written by :func:`to_text`.
VERBS: dict[str, dict[str, tuple[str, ...]]] = {
    "end": {
        "en": ("end", "end turn"),
        "sv": ("avsluta", "avsluta omgången"),
        "pl": ("koniec", "koniec tury"),
        "ko": ("종료", "턴 종료"),
    },
    "call_to_arms": {
        "en": ("call to arms",),
        "sv": ("mönstring", "call to arms"),
        "pl": ("wezwanie do broni",),
        "ko": ("군대 동원",),
    },
    "tactical_advance": {
        "en": ("tactical advance",),
        "sv": ("taktisk framryckning", "tactical advance"),
        "pl": ("taktyczny przemarsz",),
        "ko": ("전략적 진군",),
    },
    "fracture": {"en": ("fracture",), "sv": ("spräcka", "fracture"), "pl": ("pęknięcie",), "ko": ("균열",)},
    "crown": {"en": ("crown",), "sv": ("krona",), "pl": ("korona",), "ko": ("왕관",)},
    "redistribute": {
        "en": ("redistribute",),
        "sv": ("omfördela",),
        "pl": ("przegrupowanie", "przegrupuj"),
        "ko": ("재배치",),
    },
    "advance": {
        "en": ("advance",),
        "sv": ("framryckning", "gör en framryckning"),
        "pl": ("przemarsz",),
        "ko": ("진군",),
    },
    "decline": {"en": ("decline", "no advance"), "sv": ("avstå",), "pl": ("rezygnuj",), "ko": ("포기",)},
    "finish": {"en": ("finish",), "sv": ("klar",), "pl": ("zakończ",), "ko": ("완료",)},
    "pass": {"en": ("pass",), "sv": ("passa",), "pl": ("pas", "pasuj"), "ko": ("패스",)},
    "conflict": {"en": ("conflict",), "sv": ("konflikt",), "pl": ("konflikt",), "ko": ("갈등",)},
    "support": {"en": ("support",), "sv": ("stöd",), "pl": ("wsparcie",), "ko": ("지원",)},
    "discard": {"en": ("discard",), "sv": ("kasta",), "pl": ("odrzuć",), "ko": ("버리기",)},
    "keep": {"en": ("keep",), "sv": ("behåll",), "pl": ("zatrzymaj",), "ko": ("유지",)},
    "order": {"en": ("order",), "sv": ("ordning",), "pl": ("kolejność",), "ko": ("순서",)},
    "use": {"en": ("use",), "sv": ("använd",), "pl": ("użyj",), "ko": ("사용",)},
}

#: "castle" (one's own) in the four languages.
CASTLE = {"en": "castle", "sv": "borg", "pl": "zamek", "ko": "성"}
