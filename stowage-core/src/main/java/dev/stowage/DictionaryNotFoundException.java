package dev.stowage;

/** A value was compressed with a zstd dictionary that is neither cached nor stored in Redis. */
public class DictionaryNotFoundException extends StowageException {
  private static final long serialVersionUID = 1L;
  private final long dictionaryId;

  public DictionaryNotFoundException(long dictionaryId) {
    super("zstd dictionary " + Long.toHexString(dictionaryId) + " was not found");
    this.dictionaryId = dictionaryId;
  }

  /** The id the value's envelope names. */
  public long dictionaryId() {
    return dictionaryId;
  }
}
