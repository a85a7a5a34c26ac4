/* test-tool-card-mcp.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A tool server's call as the timeline shows it, from the turn file
 * alone (the server may be long gone): its text, its image as an image,
 * its resource link as a link, and an image that cannot be decoded said
 * in words.
 */

#include <adwaita.h>

#include "natter-tool-call-card.h"
#include "natter-turn-reducer.h"
#include "natter-test-support.h"
#include "natter-ui-test-world.h"

#define TID "2026-11-30T09-14-03Z-0000042-000"
#define TS "2026-11-30T09:14:03.120Z"
#define HEAD "\"turnId\":\"" TID "\",\"ts\":\"" TS "\","
#define PNG "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAEUlEQVR4nGP4z8AARAxg8j8AG/ID/fPnS7EAAAAASUVORK5CYII="

static const char *const lines[] = {
  "{\"type\":\"turn_created\"," HEAD "\"schemaVersion\":1,\"sessionId\":null,"
  "\"agent\":{\"requested\":{\"agentId\":\"assistant\"},\"resolved\":{\"agentId\":\"assistant\","
  "\"systemPrompt\":\"Be brief.\",\"model\":{\"provider\":\"p\",\"model\":\"m\"},\"tools\":["
  "{\"toolId\":\"mcp:shots/shot\",\"name\":\"mcp__shots__shot\",\"description\":\"A picture\","
  "\"inputSchema\":{\"type\":\"object\"},\"execution\":\"sync\",\"requiresHuman\":false}]}},"
  "\"context\":[],\"input\":{\"role\":\"user\",\"content\":\"Show me\"},"
  "\"config\":{\"autoPermission\":false,\"humanAvailable\":true,\"maxModelCalls\":50}}",
  "{\"type\":\"model_call_requested\"," HEAD "\"modelCallIndex\":0,\"request\":{\"messages\":[\"input\"],\"parameters\":{}}}",
  "{\"type\":\"model_call_completed\"," HEAD "\"modelCallIndex\":0,\"message\":{\"role\":\"assistant\",\"content\":["
  "{\"type\":\"tool-call\",\"toolCallId\":\"c1\",\"toolName\":\"mcp__shots__shot\",\"arguments\":{}}]},"
  "\"finishReason\":\"tool_calls\",\"usage\":{}}",
  "{\"type\":\"tool_permission_required\"," HEAD "\"toolCallId\":\"c1\",\"toolName\":\"mcp__shots__shot\","
  "\"request\":{\"server\":\"shots\",\"tool\":\"shot\",\"arguments\":{}}}",
  "{\"type\":\"tool_permission_resolved\"," HEAD "\"toolCallId\":\"c1\",\"decision\":\"allow\",\"source\":\"human\"}",
  "{\"type\":\"tool_invocation_requested\"," HEAD "\"toolCallId\":\"c1\",\"toolId\":\"mcp:shots/shot\","
  "\"toolName\":\"mcp__shots__shot\",\"execution\":\"sync\",\"input\":{}}",
  "{\"type\":\"tool_result\"," HEAD "\"toolCallId\":\"c1\",\"toolName\":\"mcp__shots__shot\",\"source\":\"sync\","
  "\"result\":{\"output\":\"Here:\\n[image: image/png]\\n[image: image/png]\\n[resource link: a.txt] file:///tmp/a.txt\","
  "\"isError\":false,\"metadata\":{\"mcp\":{\"server\":\"shots\",\"tool\":\"shot\",\"content\":["
  "{\"type\":\"text\",\"text\":\"Here:\"},"
  "{\"type\":\"image\",\"mimeType\":\"image/png\",\"data\":\"" PNG "\"},"
  "{\"type\":\"image\",\"mimeType\":\"image/png\",\"data\":\"AAAA\"},"
  "{\"type\":\"resource_link\",\"uri\":\"file:///tmp/a.txt\",\"name\":\"a.txt\"}]}}}}",
};

static gboolean
is_error_label (GtkWidget *widget)
{
  return g_str_has_prefix (gtk_label_get_text (GTK_LABEL (widget)), "Cannot show the image: ");
}

static void
test_card_media (void)
{
  g_autoptr(GPtrArray) events = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  g_autoptr(NatterTurnState) state = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) pictures = NULL;
  GtkWidget *window = gtk_window_new ();
  GtkWidget *card;
  GtkWidget *link;
  GdkPaintable *paintable;

  for (guint i = 0; i < G_N_ELEMENTS (lines); i++)
    g_ptr_array_add (events, natter_test_json (lines[i]));
  state = natter_turn_reduce (events, &error);
  g_assert_no_error (error);
  card = natter_tool_call_card_new (natter_turn_state_get_tool_call (state, 0));
  natter_tool_call_card_set_expanded (NATTER_TOOL_CALL_CARD (card), TRUE);
  gtk_window_set_child (GTK_WINDOW (window), card);
  gtk_window_present (GTK_WINDOW (window));
  ui_wait_until (ui_is_mapped, card);

  g_assert_nonnull (strstr (natter_tool_call_card_get_result (NATTER_TOOL_CALL_CARD (card)), "Here:"));
  pictures = ui_find_all (card, GTK_TYPE_PICTURE);
  g_assert_cmpuint (pictures->len, ==, 1);
  paintable = gtk_picture_get_paintable (g_ptr_array_index (pictures, 0));
  g_assert_cmpint (gdk_paintable_get_intrinsic_width (paintable), ==, 2);
  g_assert_nonnull (ui_find_first_full (card, GTK_TYPE_LABEL, is_error_label));
  link = ui_find_first (card, GTK_TYPE_LINK_BUTTON);
  g_assert_nonnull (link);
  g_assert_cmpstr (gtk_link_button_get_uri (GTK_LINK_BUTTON (link)), ==, "file:///tmp/a.txt");
  g_assert_cmpstr (gtk_button_get_label (GTK_BUTTON (link)), ==, "a.txt");
  gtk_window_destroy (GTK_WINDOW (window));
}

int
main (int   argc,
      char *argv[])
{
  ui_test_init (&argc, &argv);
  g_test_add_func ("/tool-card/mcp-media", test_card_media);
  return g_test_run ();
}
