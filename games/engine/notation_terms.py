"""The words of the move notation (:mod:`games.engine.notation`) in the four editions of the rulebook:
verbs, "castle", and the Korean and other translated names of territories, abilities, artefact types and
cards (``content.md`` §5). Data only."""

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
        "sv": ("call to arms", "mönstring"),
        "pl": ("wezwanie do broni",),
        "ko": ("군대 동원",),
    },
    "tactical_advance": {
        "en": ("tactical advance",),
        "sv": ("tactical advance", "taktisk framryckning"),
        "pl": ("taktyczny przemarsz",),
        "ko": ("전략적 진군",),
    },
    "fracture": {"en": ("fracture",), "sv": ("fracture", "spräcka"), "pl": ("pęknięcie",), "ko": ("균열",)},
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

#: Korean names of the territory types and abilities (content.md §5.5–5.6); SV and PL keep the English.
KO_TERRITORIES = {
    "grasslands": "초원",
    "fort": "요새",
    "city": "도시",
    "fortress": "성곽",
    "cave": "동굴",
    "battlefield": "전장",
    "mountains": "산지",
    "village": "마을",
    "shrine": "사당",
    "marshlands": "습지",
    "ruins": "폐허",
    "abbey": "수도원",
    "homelands": "본토",
    "arena": "경기장",
    "forest": "숲",
}
KO_ABILITIES = {
    "brutality": "야만성",
    "cleansing": "정화",
    "corruption": "붕괴",
    "defiance": "저항",
    "devotion": "헌신",
    "fear": "두려움",
    "fury": "격분",
    "greed": "탐욕",
    "influence": "영향력",
    "insight": "통찰력",
    "loyalty": "충성",
    "order": "명령",
    "preparation": "대비",
    "prosperity": "번영",
    "rage": "분노",
    "resurgence": "부활",
    "vigour": "활력",
    "vitality": "활기",
}
KO_ARTEFACT_TYPES = {"crown": "왕관", "sceptre": "홀", "orb": "오브"}
PL_ARTEFACT_TYPES = {"crown": "korona", "sceptre": "berło", "orb": "jabłko"}
#: Card names the translations use besides the English (content.md §5.4): card id -> lang -> name.
CARD_NAMES = {
    "authority": {"sv": "auktoritet", "pl": "autorytet", "ko": "권위"},
    "call_to_arms": {"sv": "mönstring", "pl": "wezwanie do broni", "ko": "군대 동원"},
    "tactical_advance": {"sv": "taktisk framryckning", "pl": "taktyczny przemarsz", "ko": "전략적 진군"},
    "fracture": {"sv": "spräcka", "pl": "pęknięcie", "ko": "균열"},
    "ambush": {"sv": "bakhåll", "pl": "zasadzka", "ko": "매복"},
}
