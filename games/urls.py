"""Page URLs of the games app (the home page ``/`` is named ``home`` in ``mastery/urls.py``)."""

from django.urls import path

from games.web import chat, history, invites, resign, views

app_name = "games"
urlpatterns = [
    path("rules/", views.rules, name="rules"),
    path("healthz", views.healthz, name="healthz"),
    path("games/tutorial/", views.tutorial, name="tutorial"),
    path("games/play-bot/", views.play_bot, name="play_bot"),
    path("games/", views.my_games, name="my_games"),
    path("games/new/", views.game_new, name="new"),
    path("games/orders/", views.orders, name="orders"),
    path("games/archive/", history.archive, name="archive"),
    path("games/import/", history.game_import, name="import"),
    path("games/<int:game_id>/replay/", history.replay, name="replay"),
    path("games/<int:game_id>/record.json", history.record, name="record"),
    path("leaderboard/", history.leaderboard, name="leaderboard"),
    path("players/<int:user_id>/", history.player, name="player"),
    path("games/orders/<int:order_id>/delete/", views.order_delete, name="order_delete"),
    path("games/<int:game_id>/pending/clear/", views.pending_clear, name="pending_clear"),
    path("games/orders/pending/", views.pending_write, name="pending_write"),
    path("games/<int:game_id>/", views.game_detail, name="detail"),
    path("games/<int:game_id>/join/", views.lobby_action, {"action": "join"}, name="join"),
    path("games/<int:game_id>/join/<str:token>/", views.invite, name="invite"),
    path("games/<int:game_id>/leave/", views.lobby_action, {"action": "leave"}, name="leave"),
    path("games/<int:game_id>/bots/", views.lobby_action, {"action": "fill_bots"}, name="fill_bots"),
    path("games/<int:game_id>/bot/", views.lobby_action, {"action": "add_bot"}, name="add_bot"),
    path("games/<int:game_id>/invite/", invites.invite_player, name="invite_player"),
    path("games/<int:game_id>/start/", views.lobby_action, {"action": "start"}, name="start"),
    path("games/<int:game_id>/cancel/", views.lobby_action, {"action": "cancel"}, name="cancel"),
    path("games/<int:game_id>/act/", views.act, name="act"),
    path("games/<int:game_id>/undo/", views.undo, name="undo"),
    path("games/<int:game_id>/back/", views.lobby_action, {"action": "back"}, name="back"),
    path("games/<int:game_id>/resign/", resign.resign, name="resign"),
    path("games/<int:game_id>/poll/", views.poll, name="poll"),
    path("games/<int:game_id>/partial/<str:name>/", views.partial, name="partial"),
    path("games/<int:game_id>/chat/", chat.chat, name="chat"),
    path("games/<int:game_id>/chat/post/", chat.chat_send, name="chat_post"),
    path("games/<int:game_id>/chat/mute/", chat.chat_mute, name="chat_mute"),
    path("games/<int:game_id>/chat/report/", chat.chat_report, name="chat_report"),
    path("games/<int:game_id>/chat/muted/", chat.chat_muted, name="chat_muted"),
    path("games/<int:game_id>/chat/export/", chat.chat_export, name="chat_export"),
    path("games/<int:game_id>/chat/layout/", chat.chat_layout, name="chat_layout"),
]
