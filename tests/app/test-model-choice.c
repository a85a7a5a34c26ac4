/* test-model-choice.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Which model the next message goes to: a pick, else the agent's own
 * model, else the last turn's, else (no default set) the model used most
 * recently (a pick remembered from an earlier run, or the model of the
 * conversation active since, whichever is later), else the default (a
 * provider's first model when no model is named).
 */

#include "natter-model-choice.h"
#include "natter-test-support.h"

static JsonObject *
model_new (const char *provider,
           const char *model)
{
  JsonObject *object = json_object_new ();

  json_object_set_string_member (object, "provider", provider);
  if (model != NULL)
    json_object_set_string_member (object, "model", model);
  return object;
}

static void
assert_descriptor (const NatterModelChoice *choice,
                   const char              *provider,
                   const char              *model)
{
  g_autoptr(JsonObject) descriptor = natter_model_choice_dup_descriptor (choice);

  if (provider == NULL)
    {
      g_assert_null (descriptor);
      return;
    }
  g_assert_nonnull (descriptor);
  g_assert_cmpstr (json_object_get_string_member (descriptor, "provider"), ==, provider);
  g_assert_cmpstr (json_object_get_string_member (descriptor, "model"), ==, model);
  g_assert_cmpuint (json_object_get_size (descriptor), ==, 2);
}

static void
assert_shown (const NatterModelChoice *choice,
              const char              *provider,
              const char              *model)
{
  const char *shown_provider = "unset";
  const char *shown_model = "unset";

  natter_model_choice_shown (choice, &shown_provider, &shown_model);
  g_assert_cmpstr (shown_provider, ==, provider);
  g_assert_cmpstr (shown_model, ==, model);
}

static void
test_pick_wins (void)
{
  g_autoptr(JsonObject) picked = model_new ("openrouter", "picked-model");
  g_autoptr(JsonObject) own = model_new ("ollama", "agent-model");
  g_autoptr(JsonObject) last = model_new ("ollama", "last-model");
  NatterModelChoice choice = { picked, own, last, "ollama", "default-model", TRUE };

  assert_shown (&choice, "openrouter", "picked-model");
  assert_descriptor (&choice, "openrouter", "picked-model");
  g_assert_null (natter_model_choice_provider_to_resolve (&choice));

  /* Without a registry an explicit pick still counts. */
  choice.has_registry = FALSE;
  assert_descriptor (&choice, "openrouter", "picked-model");
}

static void
test_agent_own_model (void)
{
  g_autoptr(JsonObject) own = model_new ("ollama", "agent-model");
  g_autoptr(JsonObject) last = model_new ("openrouter", "last-model");
  NatterModelChoice choice = { NULL, own, last, "ollama", "default-model", TRUE };

  /* Shown, but not sent: the runtime resolves the agent's own model. */
  assert_shown (&choice, "ollama", "agent-model");
  assert_descriptor (&choice, NULL, NULL);
  g_assert_null (natter_model_choice_provider_to_resolve (&choice));
}

static void
test_last_turn (void)
{
  g_autoptr(JsonObject) last = model_new ("openrouter", "last-model");
  g_autoptr(JsonObject) last_unnamed = model_new ("openrouter", NULL);
  NatterModelChoice choice = { NULL, NULL, last, "ollama", "default-model", TRUE };

  assert_shown (&choice, "openrouter", "last-model");
  assert_descriptor (&choice, "openrouter", "last-model");

  /* Without a registry the last turn's model is shown but not forced. */
  choice.has_registry = FALSE;
  assert_descriptor (&choice, NULL, NULL);
  g_assert_null (natter_model_choice_provider_to_resolve (&choice));

  /* A last turn that named no model: its provider's first one. */
  choice.has_registry = TRUE;
  choice.last = last_unnamed;
  assert_shown (&choice, "openrouter", NULL);
  assert_descriptor (&choice, NULL, NULL);
  g_assert_cmpstr (natter_model_choice_provider_to_resolve (&choice), ==, "openrouter");
}

static void
test_default (void)
{
  NatterModelChoice choice = { NULL, NULL, NULL, "ollama", "default-model", TRUE };

  assert_shown (&choice, "ollama", "default-model");
  /* The default is the agent's to apply, not an override. */
  assert_descriptor (&choice, NULL, NULL);
  g_assert_null (natter_model_choice_provider_to_resolve (&choice));

  /* No default model: the default provider's first one. */
  choice.default_model = "";
  g_assert_cmpstr (natter_model_choice_provider_to_resolve (&choice), ==, "ollama");
  choice.default_model = NULL;
  assert_shown (&choice, "ollama", NULL);
  g_assert_cmpstr (natter_model_choice_provider_to_resolve (&choice), ==, "ollama");

  /* Nothing to ask without a registry or without a provider. */
  choice.has_registry = FALSE;
  g_assert_null (natter_model_choice_provider_to_resolve (&choice));
  choice.has_registry = TRUE;
  choice.default_provider = NULL;
  assert_shown (&choice, NULL, NULL);
  g_assert_null (natter_model_choice_provider_to_resolve (&choice));
}

/* The model most recently picked or used stands in for the default of a
 * conversation with none of its own; the caller gives it only when
 * Preferences name no default. */
static void
test_recent (void)
{
  g_autoptr(JsonObject) recent = model_new ("openrouter", "recent-model");
  g_autoptr(JsonObject) recent_unnamed = model_new ("openrouter", NULL);
  g_autoptr(JsonObject) last = model_new ("ollama", "last-model");
  g_autoptr(JsonObject) own = model_new ("ollama", "agent-model");
  NatterModelChoice choice = { NULL, NULL, NULL, "ollama", NULL, TRUE, recent };

  assert_shown (&choice, "openrouter", "recent-model");
  assert_descriptor (&choice, "openrouter", "recent-model");
  g_assert_null (natter_model_choice_provider_to_resolve (&choice));

  /* Named without a model: that provider's first, not the default's. */
  choice.recent = recent_unnamed;
  assert_shown (&choice, "openrouter", NULL);
  assert_descriptor (&choice, NULL, NULL);
  g_assert_cmpstr (natter_model_choice_provider_to_resolve (&choice), ==, "openrouter");

  /* The conversation's own last model and the agent's own come first. */
  choice.recent = recent;
  choice.last = last;
  assert_shown (&choice, "ollama", "last-model");
  assert_descriptor (&choice, "ollama", "last-model");
  choice.last = NULL;
  choice.agent_own = own;
  assert_shown (&choice, "ollama", "agent-model");
  assert_descriptor (&choice, NULL, NULL);
}

/* A pick remembered from an earlier run against the model of the
 * conversation active last: the later one is what a new chat goes on
 * with, so a pick never sent with survives a restart and a conversation
 * continued since (elsewhere) is not overruled by an older pick. */
static void
test_later_recent (void)
{
  g_autoptr(JsonObject) picked = model_new ("mine", "picked-model");
  g_autoptr(JsonObject) used = model_new ("ollama", "used-model");

  g_assert_null (natter_model_choice_later_recent (NULL, NULL, NULL, NULL));
  /* Only one known: that one. */
  g_assert_true (natter_model_choice_later_recent (picked, "2026-12-01T10:00:00.000Z", NULL, NULL) == picked);
  g_assert_true (natter_model_choice_later_recent (NULL, NULL, used, "2026-12-01T10:00:00.000Z") == used);

  /* Picked after the last conversation's activity: the pick. */
  g_assert_true (natter_model_choice_later_recent (picked, "2026-12-01T10:00:00.001Z",
                                                   used, "2026-12-01T10:00:00.000Z") == picked);
  /* A conversation went on after the pick: its model. */
  g_assert_true (natter_model_choice_later_recent (picked, "2026-11-30T23:59:59.999Z",
                                                   used, "2026-12-01T00:00:00.000Z") == used);
  /* At the same moment the pick, made to be used. */
  g_assert_true (natter_model_choice_later_recent (picked, "2026-12-01T10:00:00.000Z",
                                                   used, "2026-12-01T10:00:00.000Z") == picked);
  /* A pick of unknown time gives way to a model used; a use of unknown
   * time to a pick. */
  g_assert_true (natter_model_choice_later_recent (picked, NULL, used, "2026-12-01T10:00:00.000Z") == used);
  g_assert_true (natter_model_choice_later_recent (picked, "", used, "2026-12-01T10:00:00.000Z") == used);
  g_assert_true (natter_model_choice_later_recent (picked, "2026-12-01T10:00:00.000Z", used, NULL) == picked);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/model-choice/pick-wins", test_pick_wins);
  g_test_add_func ("/model-choice/agent-own-model", test_agent_own_model);
  g_test_add_func ("/model-choice/last-turn", test_last_turn);
  g_test_add_func ("/model-choice/default", test_default);
  g_test_add_func ("/model-choice/recent", test_recent);
  g_test_add_func ("/model-choice/later-recent", test_later_recent);

  return g_test_run ();
}
