/**
 * The import page's style (README, The import page). At 390 px wide nothing is wider than the
 * screen (wide tables scroll inside their own region), and every control is at least 44 px tall
 * (a radio's or checkbox's label is its target).
 */
export const IMPORT_PAGE_STYLE = `
*,*::before,*::after{box-sizing:border-box}
[hidden]{display:none!important}
body{font:15px/1.45 system-ui,sans-serif;color:#1b1b1b;background:#fff;margin:0 auto;max-width:1100px;padding:1rem;overflow-wrap:anywhere}
h1{font-size:1.4rem}h2{font-size:1.1rem;margin-top:1.5rem}h3{font-size:1rem;margin:1rem 0 .3rem}
fieldset{border:1px solid #999;border-radius:6px;margin:.8rem 0;padding:.6rem .9rem;min-width:0}
label{margin-right:1rem}select,input,button{font:inherit;max-width:100%}
select,button,input:not([type=radio]):not([type=checkbox]){min-height:44px}
input[type=file]{padding:.5rem 0}
input[type=number]{width:6rem}
button{padding:.35rem .9rem;margin:.3rem .3rem .3rem 0}
.choice{display:inline-flex;align-items:center;gap:.4rem;min-height:44px;padding:0 .5rem 0 0;cursor:pointer}
.choice input{width:1.25rem;height:1.25rem;margin:0}
.field{display:inline-flex;flex-wrap:wrap;align-items:center;gap:.3rem .5rem;margin:.2rem 1rem .2rem 0}
.field label{margin:0}
.note{color:#333;margin:.3rem 0}
a.action,nav a{display:inline-flex;align-items:center;min-height:44px;padding:0 .2rem}
.cols{display:grid;grid-template-columns:repeat(auto-fill,minmax(min(240px,100%),1fr));gap:.6rem}
.col label{display:block;font-weight:600}.col select{width:100%}.col small{color:#444;display:block;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.col .role{white-space:normal;color:#14532d}
.scroll{overflow-x:auto;max-width:100%;margin:.4rem 0}
.scroll:focus{outline:2px solid #0645ad;outline-offset:2px}
table{border-collapse:collapse;font-size:.9rem}td,th{border:1px solid #bbb;padding:.2rem .4rem;text-align:left;vertical-align:top;overflow-wrap:normal}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
#rows td input{min-width:6rem}
#vendor-table td input{min-width:9rem}
td[aria-invalid="true"],th[aria-invalid="true"]{background:#fde2e2;outline:2px solid #b00020}
.msg{display:block;color:#b00020;font-size:.85rem;min-width:14rem;max-width:22rem;white-space:normal;overflow-wrap:anywhere}
.err{color:#b00020}.warn{background:#fff4ce;padding:.4rem .6rem;border-radius:4px}
.done{color:#14532d}
[role=status]{font-weight:600;background:#eef5ff;padding:.5rem .7rem;border-radius:4px}
caption{text-align:left;font-weight:600;padding:.2rem 0}
#checked:focus,#status:focus{outline:2px solid #0645ad;outline-offset:4px}
.send{display:flex;flex-wrap:wrap;align-items:center;gap:.5rem 1rem;margin-top:1rem;clear:both}
a{color:#0645ad}
`;
