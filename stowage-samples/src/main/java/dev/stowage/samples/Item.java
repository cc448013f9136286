package dev.stowage.samples;

import java.io.Serializable;

/**
 * The second seed's small object: five fields, keyed by {@link #id()}, written one by one and then
 * in one pipeline.
 *
 * @param id the key
 * @param name a product name
 * @param description one sentence
 * @param price the price in cents
 * @param stock how many are in stock
 */
public record Item(long id, String name, String description, long price, int stock)
    implements Serializable {
  private static final long serialVersionUID = 1L;
}
