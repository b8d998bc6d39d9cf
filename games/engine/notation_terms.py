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

#: Short forms a reader may write for a verb (issue 30), read in any language and never written.
ABBREVIATIONS: dict[str, tuple[str, ...]] = {
    "advance": ("adv",),
    "redistribute": ("redist",),
    "call_to_arms": ("cta",),
    "support": ("sup",),
    "tactical_advance": ("tac adv",),
}

#: The ability word of the crown move in Swedish and Polish (issue 30: ``krona välstånd``, ``korona
#: dobrobyt``); English writes the ability's id and Korean the word of :data:`.names.ABILITY_NAMES`.
ABILITY_WORDS: dict[str, dict[str, str]] = {
    "corruption": {"sv": "fördärv", "pl": "zepsucie"},
    "fury": {"sv": "raseri", "pl": "furia"},
    "insight": {"sv": "insikt", "pl": "wgląd"},
    "order": {"sv": "ordning", "pl": "porządek"},
    "prosperity": {"sv": "välstånd", "pl": "dobrobyt"},
    "vitality": {"sv": "livskraft", "pl": "witalność"},
    "fear": {"sv": "fruktan", "pl": "strach"},
    "influence": {"sv": "inflytande", "pl": "wpływ"},
    "rage": {"sv": "vrede", "pl": "gniew"},
    "defiance": {"sv": "trots", "pl": "opór"},
    "loyalty": {"sv": "lojalitet", "pl": "lojalność"},
    "vigour": {"sv": "styrka", "pl": "wigor"},
    "brutality": {"sv": "brutalitet", "pl": "brutalność"},
    "greed": {"sv": "girighet", "pl": "chciwość"},
    "preparation": {"sv": "förberedelse", "pl": "przygotowanie"},
    "cleansing": {"sv": "rening", "pl": "oczyszczenie"},
    "devotion": {"sv": "hängivenhet", "pl": "oddanie"},
    "resurgence": {"sv": "återkomst", "pl": "odrodzenie"},
}

#: The words of the legal forms an email lists (issue 30: no English inside a Swedish, Polish or Korean
#: email): the knight range of an advance, and the redistribution's form with its example.
KNIGHT_RANGE = {
    "en": "({low}-{high} knights)",
    "sv": "({low}–{high} riddare)",
    "pl": "({low}–{high} rycerzy)",
    "ko": "(기사 {low}–{high}명)",
}
REDISTRIBUTE_FORM = {
    "en": "from>to knights, … (e.g. {example})",
    "sv": "från>till riddare, … (t.ex. {example})",
    "pl": "skąd>dokąd rycerze, … (np. {example})",
    "ko": "출발>도착 기사수, … (예: {example})",
}

#: Why a text is not a move, by code, in the four languages (issue 30: a reply's answer gives the reason
#: in the reader's language). ``{text}`` and the like are filled in quoted.
ERRORS: dict[str, dict[str, str]] = {
    "not_text": {
        "en": "a move is a line of text",
        "sv": "ett drag är en rad text",
        "pl": "ruch to jeden wiersz tekstu",
        "ko": "수는 한 줄의 글로 씁니다",
    },
    "not_a_move": {
        "en": "{text} is not a move",
        "sv": "{text} är inget drag",
        "pl": "{text} to nie ruch",
        "ko": "{text}은(는) 수가 아닙니다",
    },
    "no_place": {
        "en": "no place called {text} on this map",
        "sv": "ingen plats heter {text} på den här kartan",
        "pl": "na tej mapie nie ma miejsca o nazwie {text}",
        "ko": "이 지도에 {text}(이)라는 곳이 없습니다",
    },
    "few_places": {
        "en": "there are only {count} called {text}",
        "sv": "det finns bara {count} som heter {text}",
        "pl": "miejsc o nazwie {text} jest tylko {count}",
        "ko": "{text}은(는) {count}곳뿐입니다",
    },
    "not_unique": {
        "en": "{text} is not unique on this map",
        "sv": "det finns flera {text} på den här kartan",
        "pl": "na tej mapie jest kilka miejsc {text}",
        "ko": "이 지도에 {text}(이)가 여러 곳 있습니다",
    },
    "no_copy": {
        "en": "no copy {rank} of {text} here",
        "sv": "inget exemplar {rank} av {text} här",
        "pl": "nie ma tu egzemplarza {rank} karty {text}",
        "ko": "여기에 {text}의 {rank}번째 카드가 없습니다",
    },
    "no_card": {
        "en": "no card {text} to play here",
        "sv": "inget kort {text} att spela här",
        "pl": "nie ma tu karty {text} do zagrania",
        "ko": "여기서 낼 {text} 카드가 없습니다",
    },
    "no_artefact": {
        "en": "no artefact called {text}",
        "sv": "ingen artefakt heter {text}",
        "pl": "nie ma artefaktu o nazwie {text}",
        "ko": "{text}(이)라는 유물이 없습니다",
    },
    "takes_nothing": {
        "en": "{text} takes nothing after it",
        "sv": "inget ska stå efter {text}",
        "pl": "po {text} nic nie piszemy",
        "ko": "{text} 뒤에는 아무것도 쓰지 않습니다",
    },
    "fracture_what": {
        "en": "fracture what?",
        "sv": "spräcka vad?",
        "pl": "pęknięcie czego?",
        "ko": "무엇을 균열시킵니까?",
    },
    "one_artefact": {
        "en": "one artefact at a time outside a response window",
        "sv": "en artefakt i taget utanför ett svarsfönster",
        "pl": "poza oknem reakcji tylko jeden artefakt naraz",
        "ko": "응답 창 밖에서는 유물 하나씩입니다",
    },
    "nothing_to_pass": {
        "en": "there is nothing to pass now",
        "sv": "det finns inget att passa nu",
        "pl": "teraz nie ma czego pasować",
        "ko": "지금은 패스할 것이 없습니다",
    },
    "not_knights": {
        "en": "{text} is not a move of knights",
        "sv": "{text} är ingen förflyttning av riddare",
        "pl": "{text} to nie przesunięcie rycerzy",
        "ko": "{text}은(는) 기사 이동이 아닙니다",
    },
    "redistribute_what": {
        "en": "redistribute what?",
        "sv": "omfördela vad?",
        "pl": "przegrupować co?",
        "ko": "무엇을 재배치합니까?",
    },
    "advance_where": {
        "en": "advance where, with how many knights?",
        "sv": "framryckning vart, med hur många riddare?",
        "pl": "przemarsz dokąd i z iloma rycerzami?",
        "ko": "어디로, 기사 몇 명으로 진군합니까?",
    },
    "one_conflict": {
        "en": "one conflict card",
        "sv": "ett konfliktkort",
        "pl": "jedna karta konfliktu",
        "ko": "갈등 카드는 한 장입니다",
    },
    "support_which": {
        "en": "support with which cards?",
        "sv": "stöd med vilka kort?",
        "pl": "wsparcie którymi kartami?",
        "ko": "어떤 카드로 지원합니까?",
    },
    "discard_one": {
        "en": "discard one card",
        "sv": "kasta ett kort",
        "pl": "odrzuć jedną kartę",
        "ko": "카드 한 장을 버립니다",
    },
}

#: "a move such as …" before the examples of :data:`ERRORS` ``not_a_move``'s ``expected``.
SUCH_AS = {"en": "a move such as ", "sv": "ett drag som ", "pl": "ruch taki jak ", "ko": "예: "}
