/* natter-action-box.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A status line with one way on: an icon or spinner, words, and a
 * button. Beside the words while they keep room to be read; under them,
 * lined up with the words, where they would not (a phone-wide window, a
 * long error), so the words never wrap into a column a few letters wide.
 * A GtkBox cannot move a child to another line, and libadwaita's wrap box
 * and breakpoints are newer than the libraries we build on.
 *
 * The children in the order given: the last is the action; the one
 * before it is the words, which take the width left; any before those
 * (an icon, a spinner) get their natural width. A hidden child takes no
 * room, and with the action hidden everything is one line.
 */

#include "config.h"

#include <string.h>

#include "natter-action-box.h"

#define SPACING     8   /* px between children on a line, as the GtkBox it replaced */
#define ROW_SPACING 6   /* px between the words and an action under them */
#define WORDS_ROOM  200 /* px the words keep beside the action, unless they need less */

struct _NatterActionBox
{
  GtkWidget parent_instance;

  gboolean  action_below;  /* as last allocated */
};

G_DEFINE_FINAL_TYPE (NatterActionBox, natter_action_box, GTK_TYPE_WIDGET)

/* The children that take part, split into those of the line, the words
 * and the action (either may be %NULL). */
typedef struct
{
  GtkWidget *lead[4];  /* before the words, natural width each */
  guint      n_lead;
  GtkWidget *words;
  GtkWidget *action;
} Parts;

static void
get_parts (NatterActionBox *self,
           Parts           *parts)
{
  GtkWidget *last = gtk_widget_get_last_child (GTK_WIDGET (self));
  GtkWidget *child;

  memset (parts, 0, sizeof *parts);
  if (last != NULL && gtk_widget_should_layout (last))
    parts->action = last;
  child = last != NULL ? gtk_widget_get_prev_sibling (last) : NULL;
  for (; child != NULL && !gtk_widget_should_layout (child); child = gtk_widget_get_prev_sibling (child))
    ;
  parts->words = child;
  for (child = gtk_widget_get_first_child (GTK_WIDGET (self)); child != NULL && child != parts->words;
       child = gtk_widget_get_next_sibling (child))
    if (gtk_widget_should_layout (child) && parts->n_lead < G_N_ELEMENTS (parts->lead))
      parts->lead[parts->n_lead++] = child;
}

static int
natural_width (GtkWidget *widget)
{
  int natural = 0;

  if (widget != NULL)
    gtk_widget_measure (widget, GTK_ORIENTATION_HORIZONTAL, -1, NULL, &natural, NULL, NULL);
  return natural;
}

/* Width of the children before the words, with the spacing after each. */
static int
lead_width (const Parts *parts)
{
  int width = 0;

  for (guint i = 0; i < parts->n_lead; i++)
    width += natural_width (parts->lead[i]) + SPACING;
  return width;
}

/* Whether the action goes under the words at @width px. */
static gboolean
action_below_at (const Parts *parts,
                 int          width)
{
  int room;

  if (parts->action == NULL || parts->words == NULL)
    return FALSE;
  room = width - lead_width (parts) - SPACING - natural_width (parts->action);
  return room < MIN (natural_width (parts->words), WORDS_ROOM);
}

static void
measure_height (GtkWidget *widget,
                int        for_width,
                int       *minimum,
                int       *natural)
{
  int child_min = 0, child_nat = 0;

  gtk_widget_measure (widget, GTK_ORIENTATION_VERTICAL, MAX (for_width, 0), &child_min, &child_nat, NULL, NULL);
  *minimum = MAX (*minimum, child_min);
  *natural = MAX (*natural, child_nat);
}

/* Height of the line of lead and words at @width px, the words given
 * what the lead leaves. */
static void
line_height (const Parts *parts,
             int          width,
             int         *minimum,
             int         *natural)
{
  *minimum = *natural = 0;
  for (guint i = 0; i < parts->n_lead; i++)
    measure_height (parts->lead[i], natural_width (parts->lead[i]), minimum, natural);
  if (parts->words != NULL)
    measure_height (parts->words, width - lead_width (parts), minimum, natural);
}

static GtkSizeRequestMode
natter_action_box_get_request_mode (GtkWidget *widget)
{
  return GTK_SIZE_REQUEST_HEIGHT_FOR_WIDTH;
}

static void
natter_action_box_measure (GtkWidget      *widget,
                           GtkOrientation  orientation,
                           int             for_size,
                           int            *minimum,
                           int            *natural,
                           int            *minimum_baseline,
                           int            *natural_baseline)
{
  Parts parts;

  get_parts (NATTER_ACTION_BOX (widget), &parts);
  if (orientation == GTK_ORIENTATION_HORIZONTAL)
    {
      int words_min = 0, words_nat = 0, action_min = 0, action_nat = 0;

      if (parts.words != NULL)
        gtk_widget_measure (parts.words, orientation, -1, &words_min, &words_nat, NULL, NULL);
      if (parts.action != NULL)
        gtk_widget_measure (parts.action, orientation, -1, &action_min, &action_nat, NULL, NULL);
      *minimum = MAX (lead_width (&parts) + words_min, action_min);
      *natural = lead_width (&parts) + words_nat + (parts.action != NULL ? SPACING + action_nat : 0);
    }
  else
    {
      int width = for_size >= 0 ? for_size : natural_width (widget);
      int action_nat = natural_width (parts.action);
      int action_min = 0, action_height = 0;

      if (!action_below_at (&parts, width))
        {
          line_height (&parts, parts.action != NULL ? width - SPACING - action_nat : width, minimum, natural);
          if (parts.action != NULL)
            measure_height (parts.action, action_nat, minimum, natural);
        }
      else
        {
          line_height (&parts, width, minimum, natural);
          gtk_widget_measure (parts.action, orientation, MIN (action_nat, width),
                              &action_min, &action_height, NULL, NULL);
          *minimum += ROW_SPACING + action_min;
          *natural += ROW_SPACING + action_height;
        }
    }
  *minimum_baseline = *natural_baseline = -1;
}

/* Places @child at @x of a line @width px wide, mirrored right to left. */
static void
place (GtkWidget *widget,
       GtkWidget *child,
       int        width,
       int        x,
       int        y,
       int        child_width,
       int        child_height)
{
  GtkAllocation allocation = { x, y, child_width, child_height };

  if (gtk_widget_get_direction (widget) == GTK_TEXT_DIR_RTL)
    allocation.x = width - x - child_width;
  gtk_widget_size_allocate (child, &allocation, -1);
}

static void
natter_action_box_size_allocate (GtkWidget *widget,
                                 int        width,
                                 int        height,
                                 int        baseline)
{
  NatterActionBox *self = NATTER_ACTION_BOX (widget);
  Parts parts;
  int action_nat, line_min = 0, line_nat = 0, x = 0, line;

  get_parts (self, &parts);
  self->action_below = action_below_at (&parts, width);
  action_nat = natural_width (parts.action);
  if (self->action_below)
    {
      line_height (&parts, width, &line_min, &line_nat);
      line = MIN (line_nat, height);
    }
  else
    line = height;

  for (guint i = 0; i < parts.n_lead; i++)
    {
      int child_width = natural_width (parts.lead[i]);

      place (widget, parts.lead[i], width, x, 0, child_width, line);
      x += child_width + SPACING;
    }
  if (parts.words != NULL)
    place (widget, parts.words, width, x,
           0, MAX (0, width - x - (parts.action != NULL && !self->action_below ? SPACING + action_nat : 0)), line);
  if (parts.action == NULL)
    return;
  if (!self->action_below)
    place (widget, parts.action, width, width - action_nat, 0, action_nat, height);
  else
    {
      int action_min = 0;
      int top = line + ROW_SPACING;

      /* Under the words, where the eye goes on from them; from the
       * start of the line when there is no room for it there. */
      gtk_widget_measure (parts.action, GTK_ORIENTATION_HORIZONTAL, -1, &action_min, NULL, NULL, NULL);
      if (width - x < action_min)
        x = 0;
      place (widget, parts.action, width, x, top, MAX (action_min, MIN (action_nat, width - x)),
             MAX (0, height - top));
    }
}

static void
natter_action_box_dispose (GObject *object)
{
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (object))) != NULL)
    gtk_widget_unparent (child);

  G_OBJECT_CLASS (natter_action_box_parent_class)->dispose (object);
}

static void
natter_action_box_class_init (NatterActionBoxClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = natter_action_box_dispose;
  widget_class->get_request_mode = natter_action_box_get_request_mode;
  widget_class->measure = natter_action_box_measure;
  widget_class->size_allocate = natter_action_box_size_allocate;
  gtk_widget_class_set_css_name (widget_class, "box");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_GROUP);
}

static void
natter_action_box_init (NatterActionBox *self)
{
}

/**
 * natter_action_box_new:
 *
 * Creates an empty action box; children are added with
 * gtk_widget_set_parent() or as `<child>` in a template, the action last.
 *
 * Returns: (transfer full): a new #NatterActionBox
 */
GtkWidget *
natter_action_box_new (void)
{
  return g_object_new (NATTER_TYPE_ACTION_BOX, NULL);
}

/**
 * natter_action_box_get_action_below:
 * @self: an action box
 *
 * Whether the last allocation put the action under the words rather than
 * beside them, for a test that checks a narrow window.
 *
 * Returns: %TRUE when the action is on a line of its own
 */
gboolean
natter_action_box_get_action_below (NatterActionBox *self)
{
  g_return_val_if_fail (NATTER_IS_ACTION_BOX (self), FALSE);

  return self->action_below;
}
