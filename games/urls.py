"""Page URLs of the games app (the home page ``/`` is named ``home`` in ``mastery/urls.py``)."""

from django.urls import path

from games.web import actions, chat, game_page, history, invites, lobby, orders, poll, resign, site, undo
from games.web import webhooks as game_webhooks

app_name = "games"
urlpatterns = [
    path("rules/", site.rules, name="rules"),
    path("healthz", site.healthz, name="healthz"),
    path("games/tutorial/", site.tutorial, name="tutorial"),
    path("games/play-bot/", site.play_bot, name="play_bot"),
    path("games/", site.my_games, name="my_games"),
    path("games/new/", site.game_new, name="new"),
    path("games/orders/", orders.orders, name="orders"),
    path("games/archive/", history.archive, name="archive"),
    path("games/import/", history.game_import, name="import"),
    path("games/<int:game_id>/replay/", history.replay, name="replay"),
    path("games/<int:game_id>/record.json", history.record, name="record"),
    path("leaderboard/", history.leaderboard, name="leaderboard"),
    path("players/<int:user_id>/", history.player, name="player"),
    path("games/orders/<int:order_id>/delete/", orders.order_delete, name="order_delete"),
    path("games/<int:game_id>/pending/clear/", orders.pending_clear, name="pending_clear"),
    path("games/orders/pending/", orders.pending_write, name="pending_write"),
    path("games/<int:game_id>/", game_page.game_detail, name="detail"),
    path("games/<int:game_id>/join/", lobby.lobby_action, {"action": "join"}, name="join"),
    path("games/<int:game_id>/join/<str:token>/", lobby.invite, name="invite"),
    path("games/<int:game_id>/leave/", lobby.lobby_action, {"action": "leave"}, name="leave"),
    path("games/<int:game_id>/bots/", lobby.lobby_action, {"action": "fill_bots"}, name="fill_bots"),
    path("games/<int:game_id>/bot/", lobby.lobby_action, {"action": "add_bot"}, name="add_bot"),
    path("games/<int:game_id>/invite/", invites.invite_player, name="invite_player"),
    path("games/<int:game_id>/start/", lobby.lobby_action, {"action": "start"}, name="start"),
    path("games/<int:game_id>/cancel/", lobby.lobby_action, {"action": "cancel"}, name="cancel"),
    path("games/<int:game_id>/act/", actions.act, name="act"),
    path("games/<int:game_id>/undo/", undo.undo, name="undo"),
    path("games/<int:game_id>/back/", lobby.lobby_action, {"action": "back"}, name="back"),
    path("games/<int:game_id>/resign/", resign.resign, name="resign"),
    path("games/<int:game_id>/webhooks/", game_webhooks.webhooks, name="webhooks"),
    path(
        "games/<int:game_id>/webhooks/<int:hook_id>/remove/",
        game_webhooks.webhook_remove,
        name="webhook_remove",
    ),
    path(
        "games/<int:game_id>/webhooks/<int:hook_id>/resume/",
        game_webhooks.webhook_resume,
        name="webhook_resume",
    ),
    path("games/<int:game_id>/poll/", poll.poll, name="poll"),
    path("games/<int:game_id>/partial/<str:name>/", game_page.partial, name="partial"),
    path("games/<int:game_id>/chat/", chat.chat, name="chat"),
    path("games/<int:game_id>/chat/post/", chat.chat_send, name="chat_post"),
    path("games/<int:game_id>/chat/mute/", chat.chat_mute, name="chat_mute"),
    path("games/<int:game_id>/chat/report/", chat.chat_report, name="chat_report"),
    path("games/<int:game_id>/chat/muted/", chat.chat_muted, name="chat_muted"),
    path("games/<int:game_id>/chat/export/", chat.chat_export, name="chat_export"),
    path("games/<int:game_id>/chat/layout/", chat.chat_layout, name="chat_layout"),
    path("games/<int:game_id>/chat/read/", chat.chat_read, name="chat_read"),
]
