# Issue 30: a player may resign (Seat.resigned_at).

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0020_game_invited"),
    ]

    operations = [
        migrations.AddField(
            model_name="seat",
            name="resigned_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
    ]
