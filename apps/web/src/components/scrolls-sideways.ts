import type { Theme } from '@mui/material/styles';

/**
 * A box that scrolls sideways and shows it: a shadow at each edge with more content beyond it. The two
 * covers move with the content (`local`) and the two shadows stay put (`scroll`), so a shadow shows only
 * where its cover has scrolled away. Pure CSS: a table on a phone no longer looks complete when two of its
 * columns are out of sight.
 */
export const scrollsSideways = (theme: Theme) => {
  const bg = theme.palette.background.paper;
  const shade = theme.palette.mode === 'dark' ? 'rgba(0, 0, 0, 0.7)' : 'rgba(0, 0, 0, 0.2)';
  return {
    overflowX: 'auto',
    background: [
      `linear-gradient(to right, ${bg} 30%, transparent) left center / 40px 100% no-repeat local`,
      `linear-gradient(to left, ${bg} 30%, transparent) right center / 40px 100% no-repeat local`,
      `radial-gradient(farthest-side at 0 50%, ${shade}, transparent) left center / 14px 100% no-repeat scroll`,
      `radial-gradient(farthest-side at 100% 50%, ${shade}, transparent) right center / 14px 100% no-repeat scroll`,
      bg,
    ].join(', '),
  } as const;
};
